//go:build e2e && browser

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/claudewrap/claudewrap/internal/testsupport/claudetest"
)

// chromium is Debian's Chromium, which `make test` installs (make browser).
const chromium = "/usr/bin/chromium"

// TestServePage: a headless run waits on a multi-select form; claudewrap
// serve's page, in headless Chromium at a phone's width, shows it with
// check boxes; two are ticked and submitted; the page shows what Claude
// recorded, and Claude recorded exactly that.
func TestServePage(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s is missing: run make browser (make test does): %v", chromium, err)
	}
	version := claudetest.Versions()[0]
	bin := claudetest.Claudewrap(t)
	sb := claudetest.New(t, version, "testdata/scenarios/multi.yaml")
	evs := filepath.Join(t.TempDir(), "events.jsonl")
	run := exec.Command(bin, "run", "--claude", sb.Claude, "--headless", "--exit-after-turn", "--on-unmatched", "wait",
		"--rules", writeRulesFile(t, "version: 1\n"), "--events", evs, "--", "pick features")
	run.Env, run.Dir = sb.Env(), sb.Dir
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- run.Wait() }()
	defer run.Process.Kill()

	url, ctx := servePage(t, sb)

	// The session's form shows (other tests' sessions may show too).
	form := `section[data-form$="/toolu_01multi"]`
	var outcome string
	var width int
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), // a phone's screen
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(form+` input[value="API"]`)),
		chromedp.Click(chromedp.CSS(form+` input[value="API"]`)),
		chromedp.Click(chromedp.CSS(form+` input[value="Auth"]`)),
		chromedp.Click(chromedp.CSS(form+` button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(form+` .outcome.ok`)),
	)
	if err == nil {
		outcome, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(form+` .outcome`)))
	}
	if err == nil {
		width, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	}
	if err != nil {
		b, _ := os.ReadFile(evs)
		t.Fatalf("the page: %v\nevents:\n%s", err, b)
	}
	if width > 390 {
		t.Errorf("the page is %dpx wide on a 390px screen", width)
	}
	// Ticked API, then Auth: recorded in that order.
	if !strings.Contains(outcome, "verified: Claude recorded Which features should we build first? → API, Auth") {
		t.Errorf("the page says %q", outcome)
	}
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("the run: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end")
	}
	res := sb.API.ToolResults()
	if len(res) != 1 || !strings.Contains(res[0].Content, `"Which features should we build first?"="API, Auth"`) {
		t.Errorf("Claude recorded %+v", res)
	}
	var b bytes.Buffer
	b.WriteString(outcome)
	report("Claude Code %s: serve page in headless Chromium (390px wide): multi-select ticked and submitted, the page showed %q", version, b.String())
}

// servePage starts claudewrap serve in sb and headless Chromium; it
// returns the page's address and Chromium's context (90 s at most), both
// ended with the test.
func servePage(t *testing.T, sb *claudetest.Sandbox) (string, context.Context) {
	t.Helper()
	return servePageWith(t, sb.Env())
}

// servePageWith is servePage with serve's environment and arguments
// given.
func servePageWith(t *testing.T, env []string, args ...string) (string, context.Context) {
	t.Helper()
	serve := exec.Command(claudetest.Claudewrap(t), append([]string{"serve"}, args...)...)
	serve.Env = env
	out, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill() })
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("serve printed %q, %v", url, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	return strings.TrimSpace(url), ctx
}

// TestServePageElicitation: a headless run under --on-unmatched wait
// waits on an MCP server's form no rule answers; serve's page shows its
// fields, one is set from its list and the boolean to true, Accept is
// clicked; the page shows what Claude reports, and the MCP server got
// exactly that.
func TestServePageElicitation(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s is missing: run make browser (make test does): %v", chromium, err)
	}
	version := claudetest.Versions()[0]
	w, got := startElicitWait(t, version)
	url, ctx := servePage(t, w.sb)
	form := `section[data-form="` + w.session + `/elicitation-1"]`
	err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(form+` fieldset[data-field="env"] select`)),
		chromedp.SetValue(chromedp.CSS(form+` fieldset[data-field="env"] select`), "staging"),
		chromedp.SetValue(chromedp.CSS(form+` fieldset[data-field="confirm"] select`), "true"),
		chromedp.Click(chromedp.CSS(form+` button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(form+` .outcome.ok`)),
	)
	var outcome string
	if err == nil {
		outcome, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(form+` .outcome`)))
	}
	if err != nil {
		t.Fatalf("the page: %v\n%s", err, w.stderr.String())
	}
	if !strings.HasPrefix(outcome, `verified: Claude recorded {"action":"accept"`) {
		t.Errorf("the page says %q", outcome)
	}
	b := w.stagingAccepted(t, got)
	report("Claude Code %s: serve page in headless Chromium: an MCP server's form set and accepted, the page showed %q; the server got %s",
		version, outcome, b)
}
