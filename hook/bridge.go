package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MaxMessage bounds one hook message; larger ones are refused unread.
const MaxMessage = 4 << 20

// readTimeout bounds how long a connection may take to deliver its message.
const readTimeout = 5 * time.Second

// Message is what the server delivers: a valid payload, or the reason a
// connection was refused.
type Message struct {
	Payload *Payload
	Err     error
}

// Server listens for hook messages on a Unix socket in a private directory.
type Server struct {
	dir  string
	path string
	ln   *net.UnixListener
	msgs chan Message
	wg   sync.WaitGroup
	once sync.Once

	// quit is closed by Close: from then on nobody reads msgs, and the
	// connections still open are closed. Without it, a connection that never
	// finishes (held until readTimeout) or more pending messages than msgs
	// holds (a flood when Claude exits) would keep Close, and so the run's
	// exit, waiting — for ever in the second case.
	quit  chan struct{}
	mu    sync.Mutex
	conns map[*net.UnixConn]struct{} // open connections; nil once closed
}

// Listen creates a private (0700) directory and a socket in it.
func Listen() (*Server, error) {
	dir, err := os.MkdirTemp("", "claudewrap-")
	if err != nil {
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	path := filepath.Join(dir, "hook.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	s := &Server{dir: dir, path: path, ln: ln, msgs: make(chan Message, 64),
		quit: make(chan struct{}), conns: map[*net.UnixConn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Messages delivers hook messages in arrival order. It is closed by Close.
func (s *Server) Messages() <-chan Message { return s.msgs }

// Close stops listening and removes the directory.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		close(s.quit)
		err = s.ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.conns = nil
		s.mu.Unlock()
		s.wg.Wait()
		close(s.msgs)
		os.RemoveAll(s.dir)
	})
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.conns == nil { // closing
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			m := s.read(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			select {
			case s.msgs <- m:
			case <-s.quit:
			}
		}()
	}
}

func (s *Server) read(c *net.UnixConn) Message {
	defer c.Close()
	if err := checkPeer(c); err != nil {
		return Message{Err: err}
	}
	_ = c.SetReadDeadline(time.Now().Add(readTimeout))
	b, err := io.ReadAll(io.LimitReader(c, MaxMessage+1))
	if err != nil {
		return Message{Err: fmt.Errorf("hook message: %w", err)}
	}
	if len(b) > MaxMessage {
		return Message{Err: fmt.Errorf("hook message over %d bytes refused", MaxMessage)}
	}
	p, err := Parse(b)
	if err != nil {
		return Message{Err: fmt.Errorf("hook message refused: %w", err)}
	}
	return Message{Payload: p}
}

// checkPeer accepts only processes of the same user. The kernel says who
// the peer is (peerUID, per OS): a socket path alone proves nothing.
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var uid int
	var cerr error
	err = raw.Control(func(fd uintptr) { uid, cerr = peerUID(int(fd)) })
	if err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("hook peer credentials: %w", err)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("hook message from uid %d refused", uid)
	}
	return nil
}

// dialTimeout bounds the hook command's whole exchange with the wrapper, so
// Claude never waits on it for long.
const dialTimeout = 300 * time.Millisecond

// Forward sends one hook message read from r to the socket. It is what
// `claudewrap hook` runs; errors are for logging only, since the hook must
// never fail Claude.
func Forward(r io.Reader, socket string) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxMessage+1))
	if err != nil {
		return err
	}
	if socket == "" {
		return errors.New("no socket: no wrapper is listening")
	}
	c, err := net.DialTimeout("unix", socket, dialTimeout)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(dialTimeout))
	_, err = io.Copy(c, bytes.NewReader(b))
	return err
}

// Settings returns the --settings JSON that adds claudewrap's hooks: the
// AskUserQuestion PreToolUse and PostToolUse hooks and a Stop hook, each
// running `EXE hook --socket SOCKET`. Claude Code combines these with the
// person's own hooks.
func Settings(exe, socket string) string {
	cmd := shellQuote(exe) + " hook --socket " + shellQuote(socket)
	entry := func(matcher string) []map[string]any {
		e := map[string]any{"hooks": []map[string]any{{"type": "command", "command": cmd, "timeout": 5}}}
		if matcher != "" {
			e["matcher"] = matcher
		}
		return []map[string]any{e}
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		PreToolUse:  entry(ToolName),
		PostToolUse: entry(ToolName),
		Stop:        entry(""),
	}})
	return string(b)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
