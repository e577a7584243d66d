package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// RefusedError is a file or directory refused for what it is: nothing was
// written to it or read from it.
type RefusedError struct {
	Path string
	Why  string
}

func (e *RefusedError) Error() string { return e.Path + ": " + e.Why }

func refused(path, format string, args ...any) error {
	return &RefusedError{Path: path, Why: fmt.Sprintf(format, args...)}
}

// Create opens name for writing from its start: a new file, or one of the
// person's own that is a regular file with one name. It is opened without
// following a symbolic link and without blocking, checked again once open,
// then made 0600 and emptied; anything else is refused with a
// [*RefusedError] before a byte is written.
func Create(name string) (*os.File, error) {
	fi, err := os.Lstat(name)
	switch {
	case err == nil:
		// Refused before it is opened: opening a device can do things.
		if err := writable(name, fi); err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	f, err := open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW, 0o600)
	switch {
	case errors.Is(err, unix.ELOOP): // made a link since
		return nil, refused(name, linkWhy)
	case errors.Is(err, unix.ENXIO): // made a FIFO no one reads since
		return nil, refused(name, "not a regular file (a FIFO): claudewrap writes only a regular file")
	case err != nil:
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = writable(name, fi)
	}
	if err == nil && fi.Mode().Perm() != 0o600 {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

const linkWhy = "a symbolic link: claudewrap does not write through links; name the file itself"

// writable says why fi, found at name, is no file to write.
func writable(name string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return refused(name, linkWhy)
	case !m.IsRegular():
		return refused(name, "not a regular file (%s): claudewrap writes only a regular file", kind(m))
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return refused(name, "its owner is unknown")
	}
	if uid := int(st.Uid); uid != os.Geteuid() {
		return refused(name, "owned by uid %d, not by you (uid %d): claudewrap writes only a file of yours", uid, os.Geteuid())
	}
	if n := uint64(st.Nlink); n != 1 {
		return refused(name, "%d names (hard links) reach this file: claudewrap writes only a file with one", n)
	}
	return nil
}

// WriteFile writes data to name through [Create].
func WriteFile(name string, data []byte) error {
	f, err := Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Open opens name for reading: only a regular file, opened without
// blocking, so that a FIFO is refused rather than waited on. A symbolic
// link is followed: reading through one writes nothing.
func Open(name string) (*os.File, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, refused(name, "not a regular file (%s)", kind(fi.Mode()))
	}
	f, err := open(name, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil && !fi.Mode().IsRegular() {
		err = refused(name, "not a regular file (%s)", kind(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the whole of name, a regular file (see [Open]) of at most
// limit bytes; a larger one is refused, naming the limit.
func ReadFile(name string, limit int64) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, refused(name, "%d bytes; at most %d allowed", fi.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, refused(name, "grew past %d bytes while read; at most %d allowed", limit, limit)
	}
	return b, nil
}

// open opens name with flag and O_NONBLOCK, so that opening a FIFO never
// waits for its other end, then makes the descriptor blocking again for
// the reads and writes that follow.
func open(name string, flag int, perm uint32) (*os.File, error) {
	fd, err := unix.Open(name, flag|unix.O_NONBLOCK|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// MkdirAll makes dir and any missing parents, each 0700, then checks dir
// as [CheckDir] does.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return CheckDir(dir)
}

// CheckDir checks that dir is a directory (not a link to one) of the
// person's own that no one else may enter, and that each of its parents is
// owned by the person or root and writable by no one else unless sticky
// (as /tmp is): otherwise another user could put their own directory in
// its place. A directory refused is a [*RefusedError]; one that does not
// exist is an error [fs.ErrNotExist] matches.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if why := private(fi); why != "" {
		return refused(dir, "not a private directory of yours: %s", why)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	p, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return err
	}
	for {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if why := guarded(fi); why != "" {
			return refused(dir, "its parent %s %s", p, why)
		}
		if p == filepath.Dir(p) {
			return nil
		}
		p = filepath.Dir(p)
	}
}

// private says why fi is not a directory of the person's own that no one
// else may enter ("" when it is).
func private(fi fs.FileInfo) string {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case !m.IsDir():
		return "not a directory (" + kind(m) + ")"
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return "its owner is unknown"
	case int(st.Uid) != os.Geteuid():
		return fmt.Sprintf("owned by uid %d, not by you (uid %d)", st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Sprintf("open to others (mode %04o, not 0700)", fi.Mode().Perm())
	}
	return ""
}

// guarded says why fi, a parent directory, lets someone other than the
// person or root change what it holds ("" when it does not).
func guarded(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return "has an unknown owner"
	case st.Uid != 0 && int(st.Uid) != os.Geteuid():
		return fmt.Sprintf("is owned by uid %d, neither you (uid %d) nor root", st.Uid, os.Geteuid())
	case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0:
		return fmt.Sprintf("is writable by others (mode %04o) and not sticky", fi.Mode().Perm())
	}
	return ""
}

// kind names what kind of file m is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
