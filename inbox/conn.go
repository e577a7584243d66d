package inbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Config says how to reach the inbox: its servers and the credentials
// NATS checks. Any one kind of credential may be given (a creds file, an
// nkey seed file, a user and password, or a token).
type Config struct {
	// URL is the server, or several comma-separated (nats://a:4222,
	// nats://b:4222): tls:// asks for TLS, as CAFile and CertFile do.
	URL string
	// CredsFile is a NATS credentials file (a user's JWT and nkey seed).
	CredsFile string
	// NkeyFile is a file holding a user's nkey seed.
	NkeyFile string
	// User and Password are a NATS user's.
	User, Password string
	// Token is a NATS authorization token.
	Token string
	// CAFile verifies the server's certificate; CertFile and KeyFile are
	// this side's own, when the server asks for one.
	CAFile, CertFile, KeyFile string
	// AllowPlaintext allows an unencrypted connection to a host that is
	// not this machine. Without TLS, only a loopback address is dialled.
	AllowPlaintext bool
	// Name is who this side is on the inbox: the name an answer is claimed
	// under, which the server's permissions tie to the NATS user (see
	// docs/inbox.md). Default: the NATS user's name, else the public key
	// of its nkey (the nkey seed file's or the creds file's). A token or
	// no credential names nobody: then Name must be given to answer.
	Name string
	// Replicas is how many copies the buckets keep when this side creates
	// them; 0 asks for 3, and 1 where the servers cannot keep 3.
	Replicas int
	// Retry keeps a connection that cannot be made at once trying, in the
	// background, as a run wants; otherwise Dial fails with the reason.
	Retry bool
}

// ErrPlaintext is why a connection without TLS to a host that is not this
// machine is refused.
var ErrPlaintext = errors.New("plaintext to a host that is not this machine: use tls:// (or give a CA), or allow plaintext explicitly")

// Conn is a connection to the inbox, shared by the run's [Publisher] and
// the answering side's methods. nats.go keeps it connected (reconnecting
// to any of the servers) until Close.
type Conn struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	cfg  Config
	name string

	// mu guards the buckets once bound, the connection-state listeners and
	// the last error the server sent apart from a reply (a permissions
	// violation, say); nothing else is done under it.
	mu       sync.Mutex
	b        *buckets
	kicks    []chan struct{}
	asyncErr error
}

// Dial connects to the inbox. It refuses plaintext to a host that is not
// this machine unless cfg says so, and wraps NATS's own reason when the
// server refuses (a wrong credential: "nats: Authorization Violation").
func Dial(ctx context.Context, cfg Config) (*Conn, error) {
	urls, secure, err := parseURLs(cfg)
	if err != nil {
		return nil, err
	}
	c := &Conn{cfg: cfg}
	opts := []nats.Option{
		nats.Name("claudewrap"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectJitter(250*time.Millisecond, time.Second),
		// Nothing is buffered while the connection is down: a write then
		// fails at once and is retried by its owner, never sent late.
		nats.ReconnectBufSize(-1),
		nats.Timeout(3 * time.Second),
		nats.PingInterval(5 * time.Second),
		nats.MaxPingsOutstanding(3),
		nats.RetryOnFailedConnect(cfg.Retry),
		nats.ConnectHandler(func(*nats.Conn) { c.kick() }),
		nats.ReconnectHandler(func(*nats.Conn) {
			// The buckets are bound again on the next use: the servers
			// may have lost them.
			c.mu.Lock()
			c.b = nil
			c.mu.Unlock()
			c.kick()
		}),
		nats.DisconnectErrHandler(func(*nats.Conn, error) { c.kick() }),
		nats.ClosedHandler(func(*nats.Conn) { c.kick() }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			c.mu.Lock()
			c.asyncErr = err
			c.mu.Unlock()
			c.kick() // a new reason, to say
		}),
	}
	if !secure && !cfg.AllowPlaintext {
		// Discovered servers are dialled too: each address is checked as
		// it is dialled, after nats.go has resolved it.
		opts = append(opts, nats.SetCustomDialer(loopbackDialer{}))
	}
	if secure {
		opts = append(opts, nats.Secure())
	}
	if cfg.CAFile != "" {
		opts = append(opts, nats.RootCAs(cfg.CAFile))
	}
	if cfg.CertFile != "" || cfg.KeyFile != "" {
		opts = append(opts, nats.ClientCert(cfg.CertFile, cfg.KeyFile))
	}
	creds, name, err := credentials(cfg)
	if err != nil {
		return nil, err
	}
	opts = append(opts, creds...)
	c.name = name
	if cfg.Name != "" {
		c.name = cfg.Name
	}
	type dialed struct {
		nc  *nats.Conn
		err error
	}
	done := make(chan dialed, 1)
	go func() {
		nc, err := nats.Connect(strings.Join(urls, ","), opts...)
		done <- dialed{nc, err}
	}()
	var d dialed
	select {
	case d = <-done:
	case <-ctx.Done():
		go func() { // the connection, should it come after all, is closed
			if d := <-done; d.nc != nil {
				d.nc.Close()
			}
		}()
		return nil, fmt.Errorf("inbox %s: %w", redacted(urls), ctx.Err())
	}
	if d.err != nil {
		return nil, fmt.Errorf("inbox %s: %w", redacted(urls), d.err)
	}
	c.nc = d.nc
	c.js, err = jetstream.New(d.nc)
	if err != nil {
		d.nc.Close()
		return nil, fmt.Errorf("inbox: %w", err)
	}
	return c, nil
}

// Check says what is wrong with cfg before anything is dialled: a URL
// that is not one, plaintext to another host (unless allowed), more than
// one credential, a credential file that cannot be read.
func Check(cfg Config) error {
	if _, _, err := parseURLs(cfg); err != nil {
		return err
	}
	_, _, err := credentials(cfg)
	return err
}

// DialRun connects as a run does: a URL refused ([ErrPlaintext]) or a
// server that refuses the connection (a wrong credential, TLS) is the
// error, as [Dial] says it; an inbox that cannot be reached yet is not: the
// connection keeps trying in the background (cfg.Retry), and the run's
// [Publisher] says so meanwhile.
func DialRun(ctx context.Context, cfg Config) (*Conn, error) {
	cfg.Retry = false
	c, err := Dial(ctx, cfg)
	if err == nil || !unreachable(err) {
		return c, err
	}
	cfg.Retry = true
	return Dial(context.Background(), cfg)
}

// unreachable reports whether err is no server answering in time, rather
// than one refusing.
func unreachable(err error) bool {
	var netErr net.Error
	return errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && !errors.Is(err, ErrPlaintext)
}

// parseURLs splits cfg.URL, checks each address, and says whether the
// connection is to be TLS; without TLS, every host must be this machine
// unless plaintext is allowed.
func parseURLs(cfg Config) (urls []string, secure bool, err error) {
	secure = cfg.CAFile != "" || cfg.CertFile != ""
	var parsed []*url.URL
	for _, s := range strings.Split(cfg.URL, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil {
			return nil, false, fmt.Errorf("inbox URL: %w", err)
		}
		switch u.Scheme {
		case "nats":
		case "tls":
			secure = true
		default:
			return nil, false, fmt.Errorf("inbox URL %s: want nats:// or tls://", u.Redacted())
		}
		if u.Hostname() == "" {
			return nil, false, fmt.Errorf("inbox URL %s: no host", u.Redacted())
		}
		if u.User != nil {
			return nil, false, fmt.Errorf("inbox URL %s: give credentials apart (a creds or nkey file, user and password, token), not in the URL", u.Redacted())
		}
		parsed = append(parsed, u)
		urls = append(urls, u.String())
	}
	if len(urls) == 0 {
		return nil, false, errors.New("inbox: no URL")
	}
	if !secure && !cfg.AllowPlaintext {
		for _, u := range parsed {
			if !loopbackHost(u.Hostname()) {
				return nil, false, fmt.Errorf("inbox %s: %w", u.Redacted(), ErrPlaintext)
			}
		}
	}
	return urls, secure, nil
}

// loopbackHost reports whether host is this machine: localhost, or a
// loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackDialer dials only loopback addresses: a plaintext connection
// never leaves this machine, whatever address a server advertises. dial
// is how it dials one (nil: a net.Dialer).
type loopbackDialer struct {
	dial func(network, address string) (net.Conn, error)
}

func (l loopbackDialer) Dial(network, address string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if !loopbackHost(host) {
		return nil, fmt.Errorf("dial %s: %w", address, ErrPlaintext)
	}
	if l.dial != nil {
		return l.dial(network, address)
	}
	d := net.Dialer{Timeout: 3 * time.Second}
	return d.Dial(network, address)
}

// credentials turns cfg's credential into nats.go's options, and names
// who it makes this side (see Config.Name).
func credentials(cfg Config) ([]nats.Option, string, error) {
	var opts []nats.Option
	var name string
	n := 0
	if cfg.CredsFile != "" {
		n++
		opts = append(opts, nats.UserCredentials(cfg.CredsFile))
		b, err := os.ReadFile(cfg.CredsFile)
		if err != nil {
			return nil, "", fmt.Errorf("inbox creds: %w", err)
		}
		kp, err := nkeys.ParseDecoratedNKey(b)
		if err != nil {
			return nil, "", fmt.Errorf("inbox creds %s: %w", cfg.CredsFile, err)
		}
		name, _ = kp.PublicKey()
		kp.Wipe()
	}
	if cfg.NkeyFile != "" {
		n++
		o, err := nats.NkeyOptionFromSeed(cfg.NkeyFile)
		if err != nil {
			return nil, "", fmt.Errorf("inbox nkey: %w", err)
		}
		opts = append(opts, o)
		b, err := os.ReadFile(cfg.NkeyFile)
		if err != nil {
			return nil, "", fmt.Errorf("inbox nkey: %w", err)
		}
		kp, err := nkeys.ParseDecoratedNKey(b)
		if err != nil {
			return nil, "", fmt.Errorf("inbox nkey %s: %w", cfg.NkeyFile, err)
		}
		name, _ = kp.PublicKey()
		kp.Wipe()
	}
	if cfg.User != "" || cfg.Password != "" {
		n++
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
		name = cfg.User
	}
	if cfg.Token != "" {
		n++
		opts = append(opts, nats.Token(cfg.Token))
	}
	if n > 1 {
		return nil, "", errors.New("inbox: give one credential (a creds file, an nkey seed file, a user and password, or a token)")
	}
	return opts, name, nil
}

func redacted(urls []string) string {
	out := make([]string, len(urls))
	for i, s := range urls {
		if u, err := url.Parse(s); err == nil {
			s = u.Redacted()
		}
		out[i] = s
	}
	return strings.Join(out, ",")
}

// Name is who this side is on the inbox (see Config.Name); empty when
// nothing names it.
func (c *Conn) Name() string { return c.name }

// Connected reports whether the connection is up now.
func (c *Conn) Connected() bool { return c.nc.IsConnected() }

// Server is the server the connection is to now, by its name; empty while
// it is down.
func (c *Conn) Server() string { return c.nc.ConnectedServerName() }

// Err is what the connection last failed with: the server's reason for
// refusing it or an operation, or nil.
func (c *Conn) Err() error {
	if err := c.nc.LastError(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asyncErr
}

// Close closes the connection.
func (c *Conn) Close() { c.nc.Close() }

// changes returns a channel that is sent a value (without blocking: it
// holds one) each time the connection connects, drops or closes, or the
// server says an error; its reader asks [Conn.Connected] what holds now.
func (c *Conn) changes() <-chan struct{} {
	ch := make(chan struct{}, 1)
	c.mu.Lock()
	c.kicks = append(c.kicks, ch)
	c.mu.Unlock()
	return ch
}

func (c *Conn) kick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.kicks {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// why is the reason the connection is down, for people.
func (c *Conn) why() string {
	if err := c.Err(); err != nil {
		return err.Error()
	}
	return strings.ToLower(c.nc.Status().String())
}
