package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/claudewrap/claudewrap/inbox"
	"github.com/claudewrap/claudewrap/internal/safefile"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/rules"
)

// InboxOptions are the flags that name the inbox (package inbox: every
// machine's forms on NATS JetStream) and how to reach it. What a flag
// leaves unsaid comes from the environment, then from the person's own
// config file ([configPath]); a folder's rules file never says it.
type InboxOptions struct {
	URL, Creds, Nkey, User, CA, Cert, Key string
	AllowPlaintext                        bool
	// Name is who answers (answer, serve); Machine is the machine a run's
	// forms are published as (run).
	Name, Machine string
	// flagged: the inbox was named by --inbox on the command line.
	flagged bool
}

// Environment variables that name the inbox, a secret it takes (kept off
// the command line, where other users see it), and the machine.
const (
	envInbox         = "CLAUDEWRAP_INBOX"
	envInboxPassword = "CLAUDEWRAP_INBOX_PASSWORD"
	envInboxToken    = "CLAUDEWRAP_INBOX_TOKEN"
	envMachine       = "CLAUDEWRAP_MACHINE"
)

// inboxFlags adds the inbox's flags to fs: the connection's on every
// command that takes an inbox, --inbox-name on those that answer, and
// --machine on run.
func inboxFlags(fs *pflag.FlagSet, o *InboxOptions, answers, runs bool) {
	fs.StringVar(&o.URL, "inbox", "", "the inbox: NATS `URL`s, comma-separated (tls://a:4222,tls://b:4222); default $"+envInbox+", else inbox: in your config.yaml")
	fs.StringVar(&o.Creds, "inbox-creds", "", "the inbox: a NATS credentials `FILE`")
	fs.StringVar(&o.Nkey, "inbox-nkey", "", "the inbox: a `FILE` holding a NATS user's nkey seed")
	fs.StringVar(&o.User, "inbox-user", "", "the inbox: a NATS `USER`, its password in $"+envInboxPassword+" (a token: $"+envInboxToken+")")
	fs.StringVar(&o.CA, "inbox-ca", "", "the inbox: the CA `FILE` its servers' certificates are checked with (TLS)")
	fs.StringVar(&o.Cert, "inbox-cert", "", "the inbox: this side's certificate `FILE`, when its servers ask for one")
	fs.StringVar(&o.Key, "inbox-key", "", "the inbox: the key `FILE` of --inbox-cert")
	fs.BoolVar(&o.AllowPlaintext, "inbox-allow-plaintext", false, "the inbox: allow nats:// without TLS to a host that is not this machine")
	if answers {
		fs.StringVar(&o.Name, "inbox-name", "", "the inbox: the `NAME` you answer under, as its permissions allow (default: your NATS user's name, else your nkey's public key)")
	}
	if runs {
		fs.StringVar(&o.Machine, "machine", "", "the inbox: the `NAME` this machine's forms are published as (default $"+envMachine+", else the host name)")
	}
}

// inboxSet reports whether any inbox flag was given on the command line.
func inboxSet(fs *pflag.FlagSet) bool {
	set := false
	fs.Visit(func(f *pflag.Flag) { set = set || strings.HasPrefix(f.Name, "inbox") })
	return set
}

// resolve is the inbox the command's flags, the environment and the
// config file name (see inboxConfig); an inbox flag given when nothing
// names an inbox is a usage error.
func (o *InboxOptions) resolve(fs *pflag.FlagSet) (cfg inbox.Config, machine string, on bool, err error) {
	o.flagged = fs.Changed("inbox")
	cfg, machine, on, err = o.inboxConfig()
	if err == nil && !on && (inboxSet(fs) || fs.Changed("machine")) {
		err = usageErrorf("no inbox named for the inbox flags given: --inbox URL, $%s, or inbox: in %s", envInbox, configPath())
	}
	return cfg, machine, on, err
}

// inboxFile is the inbox: part of the person's config file: a URL, or a
// mapping of what the flags say.
type inboxFile struct {
	URL            string `yaml:"url"`
	Creds          string `yaml:"creds"`
	Nkey           string `yaml:"nkey"`
	User           string `yaml:"user"`
	Password       string `yaml:"password"`
	Token          string `yaml:"token"`
	CA             string `yaml:"ca"`
	Cert           string `yaml:"cert"`
	Key            string `yaml:"key"`
	Name           string `yaml:"name"`
	Machine        string `yaml:"machine"`
	AllowPlaintext bool   `yaml:"allow_plaintext"`
}

func (f *inboxFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&f.URL)
	}
	// Decoding a node does not refuse unknown keys: each is checked here.
	known := map[string]bool{}
	t := reflect.TypeOf(*f)
	for i := range t.NumField() {
		known[t.Field(i).Tag.Get("yaml")] = true
	}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !known[k.Value] {
			return fmt.Errorf("line %d: inbox: no key %q (see docs/inbox.md)", k.Line, k.Value)
		}
	}
	type plain inboxFile
	return n.Decode((*plain)(f))
}

// personalConfig is the person's own config file.
type personalConfig struct {
	Inbox *inboxFile `yaml:"inbox"`
}

// configPath is the person's own config file:
// $XDG_CONFIG_HOME/claudewrap/config.yaml, else ~/.config/claudewrap/config.yaml;
// "" when there is no home to find it in.
func configPath() string {
	dir := rules.ConfigDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "config.yaml")
}

// maxConfig bounds the config file.
const maxConfig = 1 << 20

// loadConfig reads the person's config file; a missing one is empty. One
// that holds a secret (a password, a token) and that others may read is
// refused, as OpenSSH refuses a private key others may read.
func loadConfig() (personalConfig, string, error) {
	var c personalConfig
	path := configPath()
	if path == "" {
		return c, "", nil
	}
	b, err := safefile.ReadFile(path, maxConfig)
	if errors.Is(err, os.ErrNotExist) {
		return c, path, nil
	}
	if err != nil {
		return c, path, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, path, fmt.Errorf("%s: %w", path, err)
	}
	if c.Inbox != nil && (c.Inbox.Password != "" || c.Inbox.Token != "") {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			return c, path, fmt.Errorf("%s holds an inbox password or token and others may read it (mode %04o): chmod 600 it", path, fi.Mode().Perm())
		}
	}
	return c, path, nil
}

// inboxConfig is the inbox o names, with what the environment and the
// config file add; ok is false when nothing names one. machine is the name
// a run's forms are published as.
func (o *InboxOptions) inboxConfig() (cfg inbox.Config, machine string, ok bool, err error) {
	file, path, err := loadConfig()
	if err != nil {
		return cfg, "", false, usageErrorf("config: %v", err)
	}
	var f inboxFile
	if file.Inbox != nil {
		f = *file.Inbox
	}
	// Files the config file names are found from its folder.
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				return filepath.Join(home, rest)
			}
		}
		if !filepath.IsAbs(p) {
			return filepath.Join(filepath.Dir(path), p)
		}
		return p
	}
	cfg = inbox.Config{
		URL:            firstNonEmpty(o.URL, os.Getenv(envInbox), f.URL),
		CredsFile:      firstNonEmpty(o.Creds, rel(f.Creds)),
		NkeyFile:       firstNonEmpty(o.Nkey, rel(f.Nkey)),
		User:           firstNonEmpty(o.User, f.User),
		Password:       firstNonEmpty(os.Getenv(envInboxPassword), f.Password),
		Token:          firstNonEmpty(os.Getenv(envInboxToken), f.Token),
		CAFile:         firstNonEmpty(o.CA, rel(f.CA)),
		CertFile:       firstNonEmpty(o.Cert, rel(f.Cert)),
		KeyFile:        firstNonEmpty(o.Key, rel(f.Key)),
		AllowPlaintext: o.AllowPlaintext || f.AllowPlaintext,
		Name:           firstNonEmpty(o.Name, f.Name),
	}
	if cfg.URL == "" {
		return cfg, "", false, nil
	}
	host, _ := os.Hostname()
	machine = firstNonEmpty(o.Machine, os.Getenv(envMachine), f.Machine, host)
	if machine == "" {
		return cfg, "", false, usageErrorf("--machine: this machine has no host name: name it")
	}
	return cfg, machine, true, nil
}

// dialTimeout bounds connecting to the inbox.
const dialTimeout = 10 * time.Second

// dialInbox connects to the inbox to list and answer forms: a URL refused
// (plaintext to another host) is a usage error, the server's refusal (a
// wrong credential) or no server answering a failure, each in NATS's words.
//
// It refuses a process below a claudewrap run's Claude: the inbox cannot
// see who sends an answer, as a run's socket does, so the command does
// not act for Claude or anything it runs.
func dialInbox(ctx context.Context, cfg inbox.Config) (*inbox.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if root, ok := remote.InRun(os.Getpid()); ok {
		return nil, withCode(ExitError, fmt.Errorf("refused: this process runs below a claudewrap run's Claude (pid %d): "+
			"nothing Claude runs may read or answer the inbox's forms; answer from your own shell", root))
	}
	if err := inbox.Check(cfg); err != nil {
		return nil, withCode(ExitUsage, err)
	}
	c, err := inbox.Dial(ctx, cfg)
	if err != nil {
		return nil, withCode(ExitError, err)
	}
	return c, nil
}
