package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/remote"
	"github.com/claudewrap/claudewrap/web"
)

// NewCmdServe builds `claudewrap serve`.
func NewCmdServe(stdout, stderr io.Writer) *cobra.Command {
	var listen string
	var ib InboxOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "A web page to answer the forms and MCP servers' forms waiting in your sessions",
		Long: `Serve a small web page that shows every form waiting for a person in your
running sessions, with its real widgets, live, and answers them: driven on
Claude's screen and verified, the page shows what Claude recorded. An MCP
server's input form shows its fields with Accept, Decline and Cancel.

It listens on 127.0.0.1 (a free port) unless --listen says otherwise, and
answers only with the random token in the address it prints (with --listen on
every interface, such as 0.0.0.0:8765, one address per line: this machine's
first, then each of its interfaces'). A request that would change something
and that a browser says came from another page is refused, token or not. It
writes one line on stderr for each answer (its time, session, form and what
came of it) and for each request refused (why). Ctrl-C stops it.

With an inbox (--inbox, $CLAUDEWRAP_INBOX, or inbox: in your config.yaml), the
page shows the forms waiting on every machine, grouped by machine, and answers
them through the inbox (--inbox-name is who answers).`,
		Example: `  claudewrap serve
  claudewrap serve --listen 127.0.0.1:8765
  claudewrap serve --inbox tls://inbox-a:4222 --inbox-ca ca.pem --inbox-nkey alice.nk --inbox-name alice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, on, err := ib.resolve(cmd.Flags())
			if err != nil {
				return err
			}
			var sessions web.Sessions = remoteSessions{}
			if on {
				c, err := dialInbox(cmd.Context(), cfg)
				if err != nil {
					return err
				}
				defer c.Close()
				sessions = inboxForms{c}
			}
			srv, err := web.Listen(listen, sessions)
			switch {
			case err != nil && listenRefused(err):
				// The address is right; this machine will not give it now.
				return fmt.Errorf("--listen: %w", err)
			case err != nil:
				return withCode(ExitUsage, fmt.Errorf("--listen: %w", err))
			}
			if !srv.Loopback() {
				fmt.Fprintln(stderr, "claudewrap: serving beyond this machine: anyone with an address below can answer Claude")
			}
			for _, u := range srv.URLs() { // one, unless --listen names every interface
				fmt.Fprintln(stdout, u)
			}
			srv.Log = stderr // a line for each answer and each request refused
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return srv.Serve(ctx)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "`ADDR` to listen on (default 127.0.0.1 on a free port)")
	inboxFlags(cmd.Flags(), &ib, true, false)
	return cmd
}

// listenRefused reports whether a well-formed address could not be taken:
// in use, not this machine's, or a port reserved to root. That is no usage
// error (exit 2) but a failure (exit 1), as for `python -m http.server`.
func listenRefused(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EACCES)
}

// remoteSessions is the page's view of the running sessions.
type remoteSessions struct{}

func (remoteSessions) Pending(ctx context.Context) ([]web.Form, error) {
	forms, err := remote.PendingAll(ctx)
	out := make([]web.Form, len(forms))
	for i, f := range forms {
		out[i] = web.Form{Form: f}
	}
	return out, err
}

func (remoteSessions) Answer(ctx context.Context, session, id, from string, ds []answer.Decision) (remote.Outcome, error) {
	s, err := remote.Find(session)
	if err != nil {
		return remote.Outcome{}, err
	}
	return remote.Answer(ctx, s, id, from, ds)
}

func (remoteSessions) AnswerElicitation(ctx context.Context, session, id, from string, a remote.ElicitAnswer) (remote.Outcome, error) {
	s, err := remote.Find(session)
	if err != nil {
		return remote.Outcome{}, err
	}
	return remote.AnswerElicitation(ctx, s, id, from, a)
}
