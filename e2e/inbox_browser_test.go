//go:build e2e && browser

package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
	"github.com/claudewrap/claudewrap/internal/testsupport/natstest"
)

// TestServePageInbox: two runs on two machines (laptop, desk) hold forms
// on the real Claude Code, published to a three-node cluster; serve
// --inbox from a third machine shows both on one page, under each
// machine's heading, in headless Chromium; laptop's is answered there,
// and Claude recorded exactly that, the decision naming the inbox user.
func TestServePageInbox(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s is missing: run make browser (make test does): %v", chromium, err)
	}
	version := claudetest.Versions()[0]
	srv := natstest.Start(t, natstest.Options{Nodes: 3, Config: inboxAccounts([]string{"laptop", "desk"}, []string{"alice"})})
	url := srv.URL()
	runs := map[string]*waitingRun{}
	for _, m := range []string{"laptop", "desk"} {
		sb := claudetest.New(t, version, "testdata/scenarios/database.yaml")
		env := []string{"XDG_RUNTIME_DIR=" + runtimeDir(t), "CLAUDEWRAP_INBOX_PASSWORD=" + m + "-pw", "CLAUDEWRAP_MACHINE=" + m}
		runs[m] = startWaitingIn(t, sb, "version: 1\n", env, []string{"--inbox", url, "--inbox-user", m}, "pick a database")
	}
	a := answerer{sb: runs["laptop"].sb, url: url, env: []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + runtimeDir(t), "CLAUDEWRAP_INBOX_PASSWORD=alice-pw"}}
	forms := a.waitInboxForms(t, "laptop", "desk")

	page, ctx := servePageWith(t, append(a.sb.Env(), a.env...), "--inbox", url, "--inbox-user", "alice")
	laptop := `section.machine[data-machine="laptop"] section[data-form="` + forms["laptop"].ID + `/toolu_01database"]`
	desk := `section.machine[data-machine="desk"] section[data-form="` + forms["desk"].ID + `/toolu_01database"]`
	var outcome, headings string
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.CSS(desk+` input[value="SQLite"]`)),
		chromedp.WaitVisible(chromedp.CSS(laptop+` input[value="SQLite"]`)),
		chromedp.Click(chromedp.CSS(laptop+` input[value="SQLite"]`)),
		chromedp.Click(chromedp.CSS(laptop+` button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(laptop+` .outcome.ok`)),
	)
	if err == nil {
		outcome, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(laptop+` .outcome`)))
	}
	if err == nil {
		headings, err = chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("section.machine h2")].map((h) => h.textContent).join(",")`))
	}
	if err != nil {
		t.Fatalf("the page: %v\nlaptop's run:\n%s", err, runs["laptop"].stderr.String())
	}
	if !strings.Contains(outcome, "verified: Claude recorded Which database should we use? → SQLite") {
		t.Errorf("the page says %q", outcome)
	}
	if headings != "laptop,desk" && headings != "desk,laptop" {
		t.Errorf("the page's machines: %q", headings)
	}
	verifiedThroughPage(t, runs["laptop"])

	// desk's form, still waiting, answered from the command line.
	if out, errOut, code := a.cmd(t, "answer", forms["desk"].ID, "--select", "SQLite"); code != 0 {
		t.Fatalf("answer --inbox desk's form: exit %d %s%s", code, out, errOut)
	}
	verifiedThroughInbox(t, runs["desk"])
	report("Claude Code %s: serve --inbox in headless Chromium: two machines' forms under their headings, laptop's answered on the page and verified, the decision naming the inbox user; page said %q", version, outcome)
}

// verifiedThroughPage checks the run ended with exit 0, Claude recorded
// SQLite, and its decision names the page and the inbox user alice.
func verifiedThroughPage(t *testing.T, w *waitingRun) {
	t.Helper()
	if err := w.end(t); err != nil {
		t.Fatalf("the run: %v\n%s", err, w.stderr.String())
	}
	if res := w.sb.API.ToolResults(); len(res) != 1 || !strings.Contains(res[0].Content, `"Which database should we use?"="SQLite"`) {
		t.Errorf("Claude recorded %+v", res)
	}
	from := ""
	for _, e := range runEvents(t, w) {
		if e["event"] == "decision" {
			from, _ = e["from"].(string)
		}
	}
	if !strings.HasPrefix(from, "claudewrap serve (page) from 127.0.0.1") || !strings.HasSuffix(from, "(inbox user alice)") {
		t.Errorf("the decision's from %q: want the page, and the inbox user alice", from)
	}
}
