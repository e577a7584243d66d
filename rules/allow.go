package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/claudewrap/claudewrap/internal/safefile"
)

// FolderFile is the rules file found in the working folder. A repository
// can hold one, so it acts only once the person allowed its exact content
// (see [Allowance]).
const FolderFile = ".claudewrap.yaml"

// Source is where a rules file came from, which decides whether it acts.
type Source string

const (
	// Config is the person's own file in their config folder.
	Config Source = "config"
	// Folder is a file found in the working folder: it acts only once
	// allowed.
	Folder Source = "folder"
)

// Found is a rules file found without --rules.
type Found struct {
	Path   string
	Source Source
}

// DefaultPaths returns the files that may be used without --rules, in
// order: ./.claudewrap.yaml (Folder), then $XDG_CONFIG_HOME/claudewrap/rules.yaml
// (Config; ~/.config when unset), those that exist. The first that may act
// is used.
func DefaultPaths() []Found {
	var found []Found
	if _, err := os.Lstat(FolderFile); err == nil {
		found = append(found, Found{Path: FolderFile, Source: Folder})
	}
	if dir := ConfigDir(); dir != "" {
		p := filepath.Join(dir, "rules.yaml")
		if _, err := os.Stat(p); err == nil {
			found = append(found, Found{Path: p, Source: Config})
		}
	}
	return found
}

// ConfigDir is the person's claudewrap config folder
// ($XDG_CONFIG_HOME/claudewrap, else ~/.config/claudewrap), "" when there
// is no home to put it in. Their rules, allowances and config.yaml live there.
func ConfigDir() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "claudewrap")
}

// allowDir is where the person's allowances are kept: one file per rules
// file allowed, named after its path, holding the hash of the content
// allowed.
func allowDir() (string, error) {
	dir := ConfigDir()
	if dir == "" {
		return "", errors.New("no home folder to keep allowed rules files in")
	}
	return filepath.Join(dir, "allowed"), nil
}

// maxAllowance bounds an allowance: a hash and a path.
const maxAllowance = 64 << 10

// Sum is the hash an allowance holds: SHA-256 of a file's content.
func Sum(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

// realPath is where the folder file at path is: its folder's real path
// (links resolved) and its name. An allowance is for that folder's file,
// and the file must be there itself, not a link to one elsewhere (see
// [FolderFileAt]): a repository's link to a file allowed in another folder
// would otherwise act in its own.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// ErrLink is why a folder file that is a symbolic link does not act.
var ErrLink = errors.New("a symbolic link: a folder's rules file acts only as a file of that folder")

// FolderFileAt returns the folder file path names: path itself, or the
// .claudewrap.yaml in path when it is a folder. It must be named
// .claudewrap.yaml, and not be a symbolic link.
func FolderFileAt(path string) (string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, FolderFile)
	}
	if filepath.Base(path) != FolderFile {
		return "", fmt.Errorf("%s: only a folder's %s needs allowing; a file named with --rules acts as it is", path, FolderFile)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return "", fmt.Errorf("%s: %w", path, ErrLink)
	}
	return path, nil
}

// entryName names the allowance of the file at real path p.
func entryName(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:])
}

// Allowance says whether the file at path, with this content, may act:
// nil when the person allowed exactly this content, else why not
// ([ErrNotAllowed], [ErrChanged], or a problem with their allowances).
// Once it is parsed, [ProgramsAllowed] checks the programs it runs.
func Allowance(path string, content []byte) error {
	sum, _, err := allowance(path)
	if err != nil {
		return err
	}
	if sum != "sha256:"+Sum(content) {
		return ErrChanged
	}
	return nil
}

// allowance reads the allowance of the file at path: the content's sum and
// the programs recorded with it.
func allowance(path string) (sum string, programs []Program, err error) {
	p, err := realPath(path)
	if err != nil {
		return "", nil, err
	}
	dir, err := allowDir()
	if err != nil {
		return "", nil, err
	}
	if err := safefile.CheckDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, ErrNotAllowed
		}
		return "", nil, fmt.Errorf("allowances not trusted: %w", err)
	}
	b, err := safefile.ReadFile(filepath.Join(dir, entryName(p)), maxAllowance)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, ErrNotAllowed
	}
	if err != nil {
		return "", nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 || lines[1] != p {
		return "", nil, ErrNotAllowed
	}
	for _, l := range lines[2:] {
		prog, ok := parseProgramLine(l)
		if !ok {
			return "", nil, fmt.Errorf("allowance of %s: a line not understood: %q", p, l)
		}
		programs = append(programs, prog)
	}
	return lines[0], programs, nil
}

// ProgramsAllowed says whether the programs the allowed file f runs are
// those allowed with it, each with the content it had: nil when they are,
// else an error wrapping [ErrProgramChanged] that names the first that is
// not (changed, gone, or never allowed).
func ProgramsAllowed(f *File) error {
	_, recorded, err := allowance(f.Path)
	if err != nil {
		return err
	}
	if err := checkPrograms(recorded); err != nil {
		return err
	}
	now, err := Programs(f)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrProgramChanged, err)
	}
	was := map[string]string{}
	for _, p := range recorded {
		was[p.Name+"\x00"+p.Path] = p.Sum
	}
	for _, p := range now {
		if sum, ok := was[p.Name+"\x00"+p.Path]; !ok || sum != p.Sum {
			return fmt.Errorf("%w: %w", ErrProgramChanged, &ProgramError{Name: p.Name, Path: p.Path, Why: "was not allowed with the file"})
		}
	}
	return nil
}

// Why a found rules file does not act.
var (
	ErrNotAllowed = errors.New("not allowed")
	ErrChanged    = errors.New("changed since it was allowed")
)

// AllowFile records that the file at path, with this content (as read and
// checked by the caller), may act with these programs ([Programs]). It
// returns the file's real path.
func AllowFile(path string, content []byte, programs []Program) (string, error) {
	p, err := realPath(path)
	if err != nil {
		return "", err
	}
	dir, err := allowDir()
	if err != nil {
		return "", err
	}
	if err := safefile.MkdirAll(dir); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".allow-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, err = fmt.Fprintf(tmp, "sha256:%s\n%s\n", Sum(content), p)
	for _, prog := range programs {
		if err == nil {
			_, err = fmt.Fprintln(tmp, programLine(prog))
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, entryName(p)))
	}
	return p, err
}

// RevokeFile removes the allowance of the folder file at path (a file gone
// may still be allowed), if any, and reports whether there was one.
func RevokeFile(path string) (bool, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, FolderFile)
	}
	p, err := realPath(path)
	if err != nil {
		return false, err
	}
	dir, err := allowDir()
	if err != nil {
		return false, err
	}
	err = os.Remove(filepath.Join(dir, entryName(p)))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// OwnFile checks that a rules file in the person's config folder is theirs:
// owned by them and writable by nobody else, as OpenSSH asks of its
// configuration.
func OwnFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to you", path, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s can be written by others (mode %v); chmod go-w it", path, fi.Mode().Perm())
	}
	return nil
}

// Ignored is a rules file found that does not act, and why.
type Ignored struct {
	Path string
	Why  error
}

// LoadDefault loads the rules used without --rules: the first file of
// [DefaultPaths] that may act. A folder file the person has not allowed
// with exactly its content, a link, or one that cannot be read, is ignored
// and returned as such, never parsed; the person's config file must be
// theirs alone ([OwnFile]), or loading fails.
func LoadDefault() (*Set, []Ignored, error) {
	s := &Set{}
	var ignored []Ignored
	for _, f := range DefaultPaths() {
		if f.Source == Folder {
			if _, err := FolderFileAt(f.Path); err != nil {
				ignored = append(ignored, Ignored{Path: f.Path, Why: err})
				continue
			}
		}
		b, err := ReadFile(f.Path)
		if err != nil && f.Source == Folder {
			ignored = append(ignored, Ignored{Path: f.Path, Why: err})
			continue
		}
		if err != nil {
			return s, ignored, err
		}
		switch f.Source {
		case Folder:
			if err := Allowance(f.Path, b); err != nil {
				ignored = append(ignored, Ignored{Path: f.Path, Why: err})
				continue
			}
		case Config:
			if err := OwnFile(f.Path); err != nil {
				return s, ignored, fmt.Errorf("rules file not used: %w", err)
			}
		}
		file, err := Parse(f.Path, b)
		if err != nil {
			return s, ignored, err
		}
		file.Source = f.Source
		if f.Source == Folder {
			if err := ProgramsAllowed(file); err != nil {
				ignored = append(ignored, Ignored{Path: f.Path, Why: err})
				continue
			}
		}
		s.Files = append(s.Files, file)
		return s, ignored, nil
	}
	return s, ignored, nil
}

// StillAllowed checks, for each folder file in force, that the programs it
// runs are still those allowed with it (ProgramsAllowed): a program may be
// changed while a run goes on, by a command of Claude's among others. It is
// asked again before each program of the rules runs.
func (s *Set) StillAllowed() error {
	for _, f := range s.Files {
		if f.Source != Folder {
			continue
		}
		if err := ProgramsAllowed(f); err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return nil
}
