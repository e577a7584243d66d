package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/claudewrap/claudewrap/answer"
	"github.com/claudewrap/claudewrap/hook"
)

func TestExamplesLoad(t *testing.T) {
	for _, path := range examplePaths(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(string(b), "\n"); first != "# yaml-language-server: $schema=../schema/rules.schema.json" {
				t.Errorf("first line %q, want the schema comment for editors", first)
			}
			f, err := LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Rules) == 0 && len(f.Permissions) == 0 && len(f.Elicitations) == 0 {
				t.Error("no rules, no permissions and no elicitations")
			}
		})
	}
}

// scenarioQuestions reads the AskUserQuestion questions of a fakeapi
// scenario.
func scenarioQuestions(t *testing.T, path string) []answer.Question {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Rules []struct {
			Reply []struct {
				Name  string `yaml:"name"`
				Input struct {
					Questions []struct {
						Question    string `yaml:"question"`
						Header      string `yaml:"header"`
						MultiSelect bool   `yaml:"multiSelect"`
						Options     []struct {
							Label       string `yaml:"label"`
							Description string `yaml:"description"`
						} `yaml:"options"`
					} `yaml:"questions"`
				} `yaml:"input"`
			} `yaml:"reply"`
		} `yaml:"rules"`
	}
	if err := yaml.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	for _, r := range sc.Rules {
		for _, rep := range r.Reply {
			if rep.Name != hook.ToolName {
				continue
			}
			var qs []answer.Question
			for _, q := range rep.Input.Questions {
				hq := answer.Question{Question: q.Question, Header: q.Header, MultiSelect: q.MultiSelect}
				for _, o := range q.Options {
					hq.Options = append(hq.Options, answer.Option{Label: o.Label, Description: o.Description})
				}
				qs = append(qs, hq)
			}
			return qs
		}
	}
	t.Fatalf("%s: no %s", path, hook.ToolName)
	return nil
}

func TestDemoAnswersThree(t *testing.T) {
	qs := scenarioQuestions(t, "../testdata/scenarios/three.yaml")
	if len(qs) != 3 || !qs[1].MultiSelect || len(qs[1].Options) != 4 {
		t.Fatalf("questions %+v", qs)
	}
	s, err := Load("../examples/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		rule string
		d    answer.Decision
	}{
		{"database", answer.Decision{Action: answer.Select, Labels: []string{"SQLite"}}},
		{"features", answer.Decision{Action: answer.Select, Labels: []string{"Auth", "API"}}},
		{"naming", answer.Decision{Action: answer.Type, Text: "snake_case, like the rest of the repo"}},
	}
	for i, q := range qs {
		d := s.Decide(q)
		if !d.Matched() || d.Rule != want[i].rule || d.Action != want[i].d.Action || d.Text != want[i].d.Text ||
			strings.Join(d.Labels, "|") != strings.Join(want[i].d.Labels, "|") {
			t.Errorf("%s: %+v, want rule %q %+v", q.Header, d, want[i].rule, want[i].d)
		}
	}
	if got := s.Decide(qs[1]).Recorded(); got != "Auth, API" {
		t.Errorf("features recorded as %q", got)
	}
}

// TestExamplesAnswerThree runs the other examples over the same form, so
// their rules are exercised and not just loaded.
func TestExamplesAnswerThree(t *testing.T) {
	qs := scenarioQuestions(t, "../testdata/scenarios/three.yaml")
	for _, tc := range []struct {
		file string
		want []string // per question: the rule, or "unmatched"
	}{
		{"product.yaml", []string{"database", "features", "naming"}},
		{"ci.yaml", []string{"unmatched", "unmatched", "unmatched"}},
		{"night-job.yaml", []string{"unmatched", "unmatched", "unmatched"}},
	} {
		s, err := Load("../examples/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range qs {
			d := s.Decide(q)
			got := d.Rule
			if !d.Matched() {
				got = "unmatched"
			}
			if got != tc.want[i] {
				t.Errorf("%s, %s: %s (%+v), want %s", tc.file, q.Header, got, d, tc.want[i])
			}
		}
	}
}

// testdata/forms/three.json is the same form as the scenario, as a hook's
// tool_input.
func TestFormThreeMatchesScenario(t *testing.T) {
	b, err := os.ReadFile("../testdata/forms/three.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseForm(b)
	if err != nil {
		t.Fatal(err)
	}
	if want := scenarioQuestions(t, "../testdata/scenarios/three.yaml"); !reflect.DeepEqual(got, want) {
		t.Errorf("three.json:\n%+v\nscenario:\n%+v", got, want)
	}
}

// TestExamplePermissions: examples/permissions.yaml decides as its
// comments say.
func TestExamplePermissions(t *testing.T) {
	s, err := Load("../examples/permissions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, input, want string }{
		{"Bash", `{"command":"git push origin main"}`, `deny "Do not push from this job; leave the commit for review."`},
		{"Bash", `{"command":"go test ./..."}`, "allow"},
		{"Bash", `{"command":"go test ./... && make test"}`, "allow"},
		{"Bash", `{"command":"go test ./... && git push"}`, `deny "Do not push from this job; leave the commit for review."`},
		{"Bash", `{"command":"go test ./...; rm -rf x"}`, "fail"},
		{"Bash", `{"command":"curl https://x"}`, "fail"},
		{"Edit", `{"file_path":"/src/proj/docs/guide.md"}`, "allow_session"},
		{"WebFetch", `{"url":"https://docs.example.com/a"}`, "allow"},
		{"WebFetch", `{"url":"https://evil.org/"}`, `deny "No network in this job."`},
		{"ExitPlanMode", `{"plan":"x"}`, "allow"},
	} {
		if got := s.Permit(Call{Tool: tc.tool, Input: []byte(tc.input)}).Verdict.String(); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.tool, tc.input, got, tc.want)
		}
	}
	if s.Trust() == "" {
		t.Error("the example trusts the folder")
	}
}
