package natstest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options say what to start.
type Options struct {
	// Nodes is 1 (the default: one server with JetStream) or 3 (a
	// JetStream cluster of three).
	Nodes int
	// Config is configuration text every node reads after its own lines
	// (its name, ports, JetStream store and cluster routes, which the
	// helper writes): accounts, authorization, tls. Files it names by a
	// relative path are found in [Cluster.Dir].
	Config string
	// Files are written to [Cluster.Dir] before any node starts (include
	// files, certificates), by name.
	Files map[string]string
}

// Cluster is the nats-server nodes a test started. Its methods are called
// from the test's goroutine.
type Cluster struct {
	t     testing.TB
	dir   string
	nodes []*node
}

type node struct {
	name              string
	port, clusterPort int
	conf              string
	srv               *server.Server // nil while stopped
	log               *logBuf
}

// ReadyWait bounds how long [Start], [Cluster.Start] and
// [Cluster.WaitReady] wait for the nodes: a JetStream cluster elects its
// leader within about ten seconds (nats-server's election timeout is four
// to nine).
const ReadyWait = 30 * time.Second

// Start starts the nodes o asks for and waits until they are ready
// ([Cluster.WaitReady]); they are stopped when the test ends.
func Start(t testing.TB, o Options) *Cluster {
	t.Helper()
	n := o.Nodes
	if n == 0 {
		n = 1
	}
	if n != 1 && n != 3 {
		t.Fatalf("natstest: %d nodes: want 1 or 3", n)
	}
	c := &Cluster{t: t, dir: t.TempDir()}
	for name, text := range o.Files {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(text), 0o600); err != nil {
			t.Fatalf("natstest: %v", err)
		}
	}
	ports := freePorts(t, 2*n)
	for i := range n {
		c.nodes = append(c.nodes, &node{name: fmt.Sprintf("n%d", i+1), port: ports[2*i], clusterPort: ports[2*i+1], log: &logBuf{}})
	}
	for _, nd := range c.nodes {
		var b strings.Builder
		fmt.Fprintf(&b, "server_name: %s\nlisten: 127.0.0.1:%d\n", nd.name, nd.port)
		fmt.Fprintf(&b, "jetstream {\n  store_dir: %q\n  max_memory_store: 64MB\n  max_file_store: 256MB\n}\n", filepath.Join(c.dir, "store", nd.name))
		if n > 1 {
			var routes []string
			for _, o := range c.nodes {
				if o != nd {
					routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", o.clusterPort))
				}
			}
			fmt.Fprintf(&b, "cluster {\n  name: inbox\n  listen: 127.0.0.1:%d\n  routes: [%s]\n}\n", nd.clusterPort, strings.Join(routes, ", "))
		}
		b.WriteString(o.Config)
		b.WriteString("\n")
		nd.conf = filepath.Join(c.dir, nd.name+".conf")
		if err := os.WriteFile(nd.conf, []byte(b.String()), 0o600); err != nil {
			t.Fatalf("natstest: %v", err)
		}
	}
	t.Cleanup(func() {
		for i := range c.nodes {
			c.stop(i)
		}
		if t.Failed() {
			for _, nd := range c.nodes {
				t.Logf("natstest: %s's log, its end:\n%s", nd.name, nd.log.tail(6000))
			}
		}
	})
	for i := range c.nodes {
		c.startNode(i)
	}
	c.WaitReady()
	return c
}

// freePorts is n loopback ports that were free a moment ago: every node
// keeps its own across a restart, which a port the kernel picks at each
// start would not.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var lns []net.Listener
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("natstest: a free port: %v", err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		ln.Close()
	}
	return ports
}

// Dir is the folder of the nodes' configuration (and of Options.Files).
func (c *Cluster) Dir() string { return c.dir }

// Len is the number of nodes, running or not.
func (c *Cluster) Len() int { return len(c.nodes) }

// URL is every node's client address, comma-separated, as nats.go takes a
// list of servers.
func (c *Cluster) URL() string { return strings.Join(c.URLs(), ",") }

// URLs is each node's client address, in node order.
func (c *Cluster) URLs() []string {
	var out []string
	for i := range c.nodes {
		out = append(out, c.NodeURL(i))
	}
	return out
}

// NodeURL is node i's client address.
func (c *Cluster) NodeURL(i int) string { return fmt.Sprintf("nats://127.0.0.1:%d", c.nodes[i].port) }

// Index is the node named name (a server's name, as nats.go's
// ConnectedServerName says it), or -1.
func (c *Cluster) Index(name string) int {
	for i, nd := range c.nodes {
		if nd.name == name {
			return i
		}
	}
	return -1
}

// Server is node i's server, nil while it is stopped.
func (c *Cluster) Server(i int) *server.Server { return c.nodes[i].srv }

// Stop stops node i and waits until it has shut down.
func (c *Cluster) Stop(i int) {
	c.t.Helper()
	c.stop(i)
}

func (c *Cluster) stop(i int) {
	if s := c.nodes[i].srv; s != nil {
		s.Shutdown()
		s.WaitForShutdown()
		c.nodes[i].srv = nil
	}
}

// StopAll stops every node.
func (c *Cluster) StopAll() {
	c.t.Helper()
	for i := range c.nodes {
		c.stop(i)
	}
}

// Start starts node i again, on its ports and its store, and waits until
// it takes connections (not for JetStream: see [Cluster.WaitReady]).
func (c *Cluster) Start(i int) {
	c.t.Helper()
	if c.nodes[i].srv != nil {
		c.t.Fatalf("natstest: %s is running", c.nodes[i].name)
	}
	c.startNode(i)
}

// StartAll starts every stopped node and waits until JetStream is ready.
func (c *Cluster) StartAll() {
	c.t.Helper()
	for i, nd := range c.nodes {
		if nd.srv == nil {
			c.startNode(i)
		}
	}
	c.WaitReady()
}

func (c *Cluster) startNode(i int) {
	c.t.Helper()
	nd := c.nodes[i]
	opts, err := server.ProcessConfigFile(nd.conf)
	if err != nil {
		c.t.Fatalf("natstest: %s: %v", nd.conf, err)
	}
	opts.NoSigs = true
	s, err := server.NewServer(opts)
	if err != nil {
		c.t.Fatalf("natstest: %s: %v", nd.name, err)
	}
	s.SetLoggerV2(nd.log, false, false, false)
	s.Start()
	if !s.ReadyForConnections(ReadyWait) {
		s.Shutdown()
		c.t.Fatalf("natstest: %s took no connections within %v; its log's end:\n%s", nd.name, ReadyWait, nd.log.tail(4000))
	}
	nd.srv = s
}

// WaitReady waits until every running node takes connections and has
// JetStream, and, in a cluster, one of them leads JetStream and every
// running node is current with it; it fails the test with what it last
// saw after [ReadyWait].
func (c *Cluster) WaitReady() {
	c.t.Helper()
	deadline := time.Now().Add(ReadyWait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		saw, ok := c.readiness()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("natstest: not ready within %v: %s", ReadyWait, saw)
		}
		<-tick.C
	}
}

// readiness says what each running node reports, and whether that is
// ready.
func (c *Cluster) readiness() (string, bool) {
	var saw []string
	ok, leaders := true, 0
	for _, nd := range c.nodes {
		s := nd.srv
		if s == nil {
			saw = append(saw, nd.name+": stopped")
			continue
		}
		js, cur, lead := s.JetStreamEnabled(), s.JetStreamIsCurrent(), s.JetStreamIsLeader()
		saw = append(saw, fmt.Sprintf("%s: jetstream %v, current %v, leader %v", nd.name, js, cur, lead))
		ok = ok && js && cur
		if lead {
			leaders++
		}
	}
	if len(c.nodes) > 1 {
		ok = ok && leaders == 1
	}
	return strings.Join(saw, "; "), ok
}

// logBuf keeps a node's log for the test's failure report.
type logBuf struct {
	mu  sync.Mutex
	buf []byte
}

func (l *logBuf) printf(level, format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = fmt.Appendf(l.buf, "%s %s "+format+"\n", append([]any{time.Now().Format("15:04:05.000"), level}, v...)...)
	if len(l.buf) > 1<<20 {
		l.buf = append([]byte(nil), l.buf[len(l.buf)-1<<19:]...)
	}
}

func (l *logBuf) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > n {
		return "…" + string(l.buf[len(l.buf)-n:])
	}
	return string(l.buf)
}

func (l *logBuf) Noticef(format string, v ...any) { l.printf("[INF]", format, v...) }
func (l *logBuf) Warnf(format string, v ...any)   { l.printf("[WRN]", format, v...) }
func (l *logBuf) Fatalf(format string, v ...any)  { l.printf("[FTL]", format, v...) }
func (l *logBuf) Errorf(format string, v ...any)  { l.printf("[ERR]", format, v...) }
func (l *logBuf) Debugf(format string, v ...any)  {}
func (l *logBuf) Tracef(format string, v ...any)  {}

var _ server.Logger = (*logBuf)(nil)
