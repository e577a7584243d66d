package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudewrap/claudewrap/internal/testsupport/testkit"
)

func writeFile(t *testing.T, path, data string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	t.Run("new file", func(t *testing.T) {
		f, err := Create(filepath.Join(dir, "new"))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if fi, _ := os.Stat(f.Name()); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %04o, want 0600", fi.Mode().Perm())
		}
	})
	t.Run("own file 0644 ends 0600, emptied", func(t *testing.T) {
		name := filepath.Join(dir, "old")
		writeFile(t, name, "old content", 0o644)
		if err := WriteFile(name, []byte("new")); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(name)
		if b, _ := os.ReadFile(name); string(b) != "new" || fi.Mode().Perm() != 0o600 {
			t.Errorf("%q, mode %04o; want \"new\", 0600", b, fi.Mode().Perm())
		}
	})
}

// TestCreateRefuses: what is not a regular file of the person's own with
// one name is refused with the reason, and left as it was.
func TestCreateRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, path string) (victim string)
		want  string
	}{
		{"another user's 0666 file in a sticky directory", func(t *testing.T, path string) string {
			writeFile(t, path, "theirs", 0o666)
			testkit.GiveAway(t, path)
			return path
		}, "owned by uid 65534, not by you"},
		{"a hard link to a file of yours", func(t *testing.T, path string) string {
			victim := path + ".victim"
			writeFile(t, victim, "keep me", 0o600)
			if err := os.Link(victim, path); err != nil {
				t.Fatal(err)
			}
			return victim
		}, "2 names (hard links)"},
		{"a symbolic link to a file of yours", func(t *testing.T, path string) string {
			victim := path + ".victim"
			writeFile(t, victim, "keep me", 0o600)
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
			return victim
		}, "a symbolic link"},
		{"a symbolic link to nothing", func(t *testing.T, path string) string {
			if err := os.Symlink(path+".victim", path); err != nil {
				t.Fatal(err)
			}
			return path + ".victim"
		}, "a symbolic link"},
		{"a FIFO no one reads", func(t *testing.T, path string) string {
			testkit.FIFO(t, path)
			return ""
		}, "not a regular file (a FIFO)"},
		{"a directory", func(t *testing.T, path string) string {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			return ""
		}, "not a regular file (a directory)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(testkit.StickyDir(t), "out")
			victim := tc.plant(t, path)
			var before []byte
			if victim != "" {
				before, _ = os.ReadFile(victim)
			}
			err := testkit.Within(t, 5*time.Second, "Create", func() error {
				f, err := Create(path)
				if err == nil {
					f.Close()
				}
				return err
			})
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%v, want a one-line refusal saying %q", err, tc.want)
			}
			if victim == "" {
				return
			}
			after, aerr := os.ReadFile(victim)
			if string(after) != string(before) || (before == nil) != (aerr != nil) {
				t.Errorf("%s changed: %q, was %q", victim, after, before)
			}
		})
	}
}

// TestCreateFIFOWithAReader: a FIFO someone reads is refused too, and the
// reader gets nothing.
func TestCreateFIFOWithAReader(t *testing.T) {
	path := filepath.Join(testkit.StickyDir(t), "out")
	read := testkit.FIFOReader(t, path)
	err := testkit.Within(t, 5*time.Second, "Create", func() error {
		f, err := Create(path)
		if err == nil {
			f.WriteString("secret")
			f.Close()
		}
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Errorf("%v, want the FIFO refused", err)
	}
	if got := read(); got != "" {
		t.Errorf("the FIFO's reader got %q", got)
	}
}

func TestCreateDevice(t *testing.T) {
	_, err := Create(os.DevNull)
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a character device)") {
		t.Errorf("%s: %v, want it refused", os.DevNull, err)
	}
}

// TestReadFileRefuses: a FIFO no one writes, a device that never ends and
// a file past the limit are refused at once, with the reason.
func TestReadFileRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	testkit.FIFO(t, fifo)
	big := testkit.Sparse(t, filepath.Join(dir, "big"), 1<<40)
	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{"/dev/zero", "not a regular file (a character device)"},
		{dir, "not a regular file (a directory)"},
		{big, big + ": 1099511627776 bytes; at most 1024 allowed"},
		{filepath.Join(dir, "nothing"), "no such file"},
	} {
		err := testkit.Within(t, 5*time.Second, tc.path, func() error { _, err := ReadFile(tc.path, 1024); return err })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	writeFile(t, name, "12345", 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(name, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{name, link} {
		if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
	if _, err := ReadFile(name, 4); err == nil || !strings.Contains(err.Error(), "5 bytes; at most 4 allowed") {
		t.Errorf("past the limit: %v", err)
	}
}

func TestMkdirAll(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "c")
	if err := MkdirAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a", "a/b", "a/b/c"} {
		if fi, err := os.Stat(filepath.Join(root, d)); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, %v; want 0700", d, fi.Mode(), err)
		}
	}
	if err := MkdirAll(dir); err != nil {
		t.Errorf("again: %v", err)
	}
	if err := MkdirAll(filepath.Join(testkit.StickyDir(t), "mine")); err != nil {
		t.Errorf("in a sticky directory: %v", err)
	}
}

// TestMkdirAllRefuses: a directory another user owns or others may enter,
// a link in its place, or a parent another user may change is refused.
func TestMkdirAllRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string)
		want  string
	}{
		{"open to others", func(t *testing.T, dir string) {
			os.Mkdir(dir, 0o700)
			os.Chmod(dir, 0o755)
		}, "not a private directory of yours: open to others (mode 0755, not 0700)"},
		{"a symbolic link", func(t *testing.T, dir string) {
			os.Symlink(t.TempDir(), dir)
		}, "not a private directory of yours: a symbolic link"},
		{"a file", func(t *testing.T, dir string) {
			writeFile(t, dir, "", 0o600)
		}, "not a directory"},
		{"another user's", func(t *testing.T, dir string) {
			os.Mkdir(dir, 0o700)
			testkit.GiveAway(t, dir)
		}, "owned by uid 65534, not by you"},
		{"in another user's directory", func(t *testing.T, dir string) {
			testkit.GiveAway(t, filepath.Dir(dir))
		}, "is owned by uid 65534, neither you"},
		{"in a directory anyone may change", func(t *testing.T, dir string) {
			os.Chmod(filepath.Dir(dir), 0o777)
		}, "is writable by others (mode 0777) and not sticky"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := filepath.Join(t.TempDir(), "parent")
			if err := os.Mkdir(parent, 0o700); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(parent, "dir")
			tc.plant(t, dir)
			if err := MkdirAll(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}
