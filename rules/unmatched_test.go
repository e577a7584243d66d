package rules

import (
	"path/filepath"
	"testing"
	"time"
)

// TestCheckUnmatched: the fallback policy, and an answer timeout on a
// policy that waits for a person, need a fallback answer; a value from the
// rules is placed where the first file that sets it sets it, one from a
// flag is named by its flag.
func TestCheckUnmatched(t *testing.T) {
	const (
		needFallback = "needs a fallback answer in the rules' defaults (defaults: {fallback: …}) to answer unmatched questions with; add one, or choose another policy"
		needTimeout  = "needs a fallback answer in the rules' defaults (defaults: {fallback: …}) to answer with when it runs out; add one, or drop the timeout"
	)
	files := map[string]string{
		"none.yaml":     "version: 1\n",
		"fb.yaml":       "version: 1\ndefaults: {on_unmatched: fallback}\n",
		"timed.yaml":    "version: 1\ndefaults:\n  answer_timeout: 2m\n",
		"ask.yaml":      "version: 1\ndefaults: {on_unmatched: ask, answer_timeout: 2m}\n",
		"fail.yaml":     "version: 1\ndefaults: {on_unmatched: fail, answer_timeout: 2m}\n",
		"cancel.yaml":   "version: 1\ndefaults: {on_unmatched: cancel, answer_timeout: 2m}\n",
		"answers.yaml":  "version: 1\ndefaults: {fallback: {cancel: true}}\n",
		"complete.yaml": "version: 1\ndefaults: {on_unmatched: fallback, answer_timeout: 2m, fallback: {type: Go on.}}\n",
	}
	dir := t.TempDir()
	for name, src := range files {
		writeFile(t, dir, name, src)
	}
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name  string
		files []string
		u     *Unmatched // nil: Check, the rules' own defaults
		want  string
	}{
		{"nothing set", []string{"none.yaml"}, nil, ""},
		{"the rules' fallback policy", []string{"fb.yaml"}, nil, at("fb.yaml") + ":2:26: on_unmatched: fallback " + needFallback},
		{"the rules' timeout, policy not set", []string{"timed.yaml"}, nil, at("timed.yaml") + ":3:19: answer_timeout: 2m0s " + needTimeout},
		{"the rules' timeout under ask", []string{"ask.yaml"}, nil, at("ask.yaml") + ":2:47: answer_timeout: 2m0s " + needTimeout},
		{"a timeout under fail is never used", []string{"fail.yaml"}, nil, ""},
		{"a timeout under cancel is never used", []string{"cancel.yaml"}, nil, ""},
		{"a fallback in a later file", []string{"fb.yaml", "answers.yaml"}, nil, ""},
		{"a fallback in an earlier file", []string{"answers.yaml", "timed.yaml"}, nil, ""},
		{"the first file that sets it", []string{"none.yaml", "ask.yaml", "timed.yaml"}, nil, at("ask.yaml") + ":2:47: answer_timeout: 2m0s " + needTimeout},
		{"complete", []string{"complete.yaml"}, nil, ""},
		{"the flag's fallback policy", []string{"none.yaml"}, &Unmatched{Policy: Fallback, PolicyFlag: "--on-unmatched"},
			"--on-unmatched fallback " + needFallback},
		{"the flag's timeout", []string{"none.yaml"}, &Unmatched{Policy: Passthrough, Timeout: time.Second, TimeoutFlag: "--answer-timeout"},
			"--answer-timeout 1s " + needTimeout},
		{"the flag's timeout under wait", []string{"none.yaml"}, &Unmatched{Policy: Wait, Timeout: time.Second, TimeoutFlag: "--answer-timeout"},
			"--answer-timeout 1s " + needTimeout},
		{"the rules' timeout under the flag's ask", []string{"timed.yaml"}, &Unmatched{Policy: Ask, PolicyFlag: "--on-unmatched", Timeout: 2 * time.Minute},
			at("timed.yaml") + ":3:19: answer_timeout: 2m0s " + needTimeout},
		{"the rules' timeout under the flag's fail", []string{"timed.yaml"}, &Unmatched{Policy: Fail, PolicyFlag: "--on-unmatched", Timeout: 2 * time.Minute}, ""},
		{"the flag's fallback policy with the rules' fallback", []string{"answers.yaml"}, &Unmatched{Policy: Fallback, PolicyFlag: "--on-unmatched"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for _, f := range tc.files {
				paths = append(paths, at(f))
			}
			s, err := Load(paths...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.u == nil {
				err = s.Check()
			} else {
				err = s.CheckUnmatched(*tc.u)
			}
			if got := errString(err); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if tc.u != nil || len(tc.files) > 1 {
				return
			}
			// CheckFile reports the same, among the file's problems.
			_, err = CheckFile(paths[0], false)
			if got := errString(err); got != tc.want {
				t.Errorf("CheckFile: got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestCheckFileDefaultsAfterMistakes: defaults that did not load whole are
// not also reported as missing their fallback.
func TestCheckFileDefaultsAfterMistakes(t *testing.T) {
	path := writeFile(t, t.TempDir(), "r.yaml", "version: 1\ndefaults: {on_unmatched: fallback, fallback: {select: A}}\n")
	_, err := CheckFile(path, false)
	want := path + ":2:46: fallback must be type, chat or cancel: a select cannot fit every question"
	if got := errString(err); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
