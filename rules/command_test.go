package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// commandCase is a command line, the parts it reads as, and what two rules
// decide of it: an allow of a few harmless commands (allowedCommands),
// which holds only when it allows every part, and a deny of touch
// (deniedCommands), which holds when any part is a touch.
type commandCase struct {
	cmd   string
	parts []string // each part's text; "~" before a wrapper's seen through, "!" before one no rule can allow, "?" before one opaque
	allow bool     // the allow holds
	deny  bool     // the deny holds
}

const (
	allowedCommands = `^(go test|echo|ls|cat|cd|true|git status|grep|wc|make test)( |$)`
	deniedCommands  = `^touch( |$)`
)

// commandCases are read by TestReadCommand and seed FuzzReadCommand.
var commandCases = []commandCase{
	// One command, as it is written.
	{"go test ./...", []string{"go test ./..."}, true, false},
	{"touch F", []string{"touch F"}, false, true},
	{"touch", []string{"touch"}, false, true},
	{"touchy F", []string{"touchy F"}, false, false},
	{"", nil, false, false},
	{"   ", nil, false, false},
	{"# touch F", nil, false, false},
	{"ls # && touch F", []string{"ls"}, true, false},
	{"  touch   F  ", []string{"touch F"}, false, true},
	{" touch F", []string{"touch F"}, false, true},
	{"touch\tF", []string{"touch F"}, false, true},
	{"touch\t\t F\t", []string{"touch F"}, false, true},
	{"touch \\\n F", []string{"touch F"}, false, true},
	{"go  test   ./...", []string{"go test ./..."}, true, false},
	{"go\ttest ./...", []string{"go test ./..."}, true, false},
	{"go test", []string{"go test"}, true, false},
	{"gotest ./...", []string{"gotest ./..."}, false, false},
	{"go testing", []string{"go testing"}, false, false},
	{"echo", []string{"echo"}, true, false},

	// Lists, pipelines, and and or.
	{"go test ./...; touch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./... && touch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./... || touch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./... | touch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./... |& touch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./... & touch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./...\ntouch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./...\r\ntouch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./...;touch F", []string{"go test ./...", "touch F"}, false, true},
	{"go test ./...&&touch F", []string{"go test ./...", "touch F"}, false, true},
	{"true; touch F", []string{"true", "touch F"}, false, true},
	{"cd dir && touch F", []string{"cd dir", "touch F"}, false, true},
	{"cd . && touch F", []string{"cd .", "touch F"}, false, true},
	{"go test -h >/dev/null 2>&1; touch FILE", []string{"go test -h >/dev/null 2>&1", "touch FILE"}, false, true},
	{"go test ./... && echo ok", []string{"go test ./...", "echo ok"}, true, false},
	{"go test ./... | grep FAIL | wc -l", []string{"go test ./...", "grep FAIL", "wc -l"}, true, false},
	{"go test | sh", []string{"go test", "?sh"}, false, false},
	{"go test ./... | bash", []string{"go test ./...", "?bash"}, false, false},
	{"go test ./... && rm -rf x", []string{"go test ./...", "rm -rf x"}, false, false},
	{"ls; ls; ls; touch F; ls", []string{"ls", "ls", "ls", "touch F", "ls"}, false, true},
	{"! touch F", []string{"touch F"}, false, true},
	{"! go test", []string{"go test"}, true, false},
	{"go test ./... &", []string{"go test ./..."}, true, false},
	{"a && b || c; d | e & f", []string{"a", "b", "c", "d", "e", "f"}, false, false},
	{"ls || true", []string{"ls", "true"}, true, false},
	{"echo a; echo b;", []string{"echo a", "echo b"}, true, false},

	// Groups, subshells and control flow.
	{"(touch F)", []string{"touch F"}, false, true},
	{"( cd x; touch F )", []string{"cd x", "touch F"}, false, true},
	{"{ touch F; }", []string{"touch F"}, false, true},
	{"{ go test; echo done; }", []string{"go test", "echo done"}, true, false},
	{"if true; then touch F; fi", []string{"true", "touch F"}, false, true},
	{"if go test; then echo ok; else echo no; fi", []string{"go test", "echo ok", "echo no"}, true, false},
	{"if false; then :; elif touch F; then :; fi", []string{"false", ":", "touch F", ":"}, false, true},
	{"while true; do touch F; done", []string{"true", "touch F"}, false, true},
	{"until ls; do touch F; done", []string{"ls", "touch F"}, false, true},
	{"for f in a b; do touch $f; done", []string{"touch $f"}, false, true},
	{"for f in $(touch F); do echo $f; done", []string{"touch F", "echo $f"}, false, true},
	{"for ((i=0; i<3; i++)); do echo $i; done", []string{"?for ((i=0; i<3; i++))", "echo $i"}, false, false},
	{"for f in *.go; do cat \"$f\"; done", []string{"cat \"$f\""}, true, false},
	{"case x in x) touch F;; esac", []string{"touch F"}, false, true},
	{"case $(touch F) in *) echo;; esac", []string{"touch F", "echo"}, false, true},
	{"select x in a b; do touch F; done", []string{"touch F"}, false, true},
	{"f() { touch F; }; f", []string{"touch F", "f"}, false, true},
	{"function f { touch F; }", []string{"touch F"}, false, true},
	{"go() { touch F; }; go test", []string{"touch F", "go test"}, false, true},
	{"coproc touch F", []string{"touch F"}, false, true},
	{"coproc c { touch F; }", []string{"touch F"}, false, true},
	{"time touch F", []string{"~time touch F", "touch F"}, false, true},
	{"time go test", []string{"~time go test", "go test"}, true, false},
	{"time -p go test", []string{"~time -p go test", "go test"}, true, false},
	{"time go test | touch F", []string{"~time go test | touch F", "go test", "touch F"}, false, true},
	{"[[ -f go.mod ]] && go test", []string{"[[ -f go.mod ]]", "go test"}, false, false},
	{"[[ $(touch F) ]]", []string{"[[ $(touch F) ]]", "touch F"}, false, true},
	{"((i++))", []string{"?((i++))"}, false, false},
	{"(( $(touch F) ))", []string{"?(( $(touch F) ))", "touch F"}, false, true},
	{"let i=1", []string{"?let i=1"}, false, false},
	{"for f in a; do go test; done > out.txt", []string{">out.txt", "go test"}, false, false},
	{"{ go test; } 2>&1", []string{"2>&1", "go test"}, false, false},
	{"(go test) >/dev/null", []string{">/dev/null", "go test"}, false, false},

	// Substitutions.
	{"echo $(touch F)", []string{"echo $(touch F)", "touch F"}, false, true},
	{"echo `touch F`", []string{"echo `touch F`", "touch F"}, false, true},
	{"go test $(touch F)", []string{"go test $(touch F)", "touch F"}, false, true},
	{"go test \"$(touch F)\"", []string{"go test \"$(touch F)\"", "touch F"}, false, true},
	{"echo \"a $(echo b $(touch F))\"", []string{"echo \"a $(echo b $(touch F))\"", "echo b $(touch F)", "touch F"}, false, true},
	{"echo $(go test)", []string{"echo $(go test)", "go test"}, true, false},
	{"cat <(touch F)", []string{"cat <(touch F)", "touch F"}, false, true},
	{"echo >(touch F)", []string{"echo >(touch F)", "touch F"}, false, true},
	{"diff <(ls a) <(ls b)", []string{"diff <(ls a) <(ls b)", "ls a", "ls b"}, false, false},
	{"cat <(ls a)", []string{"cat <(ls a)", "ls a"}, true, false},
	{"echo ${X:-$(touch F)}", []string{"echo ${X:-$(touch F)}", "touch F"}, false, true},
	{"echo $(( $(touch F) + 1 ))", []string{"?echo $(( $(touch F) + 1 ))", "touch F"}, false, true},
	{"x=$(touch F)", []string{"x=$(touch F)", "touch F"}, false, true},
	{"x=$(go test)", []string{"x=$(go test)", "go test"}, false, false},
	{"echo $X", []string{"echo $X"}, true, false},
	{"echo \"$HOME/x\"", []string{"echo \"$HOME/x\""}, true, false},
	{"echo ${#X}", []string{"echo ${#X}"}, true, false},
	{"ls $(ls)", []string{"ls $(ls)", "ls"}, true, false},

	// Here-documents and here-strings.
	{"cat <<EOF\nhello\nEOF", []string{"cat <<EOF"}, true, false},
	{"cat <<'EOF'\n$(touch F)\nEOF", []string{"cat <<EOF"}, true, false},
	{"cat <<EOF\n$(touch F)\nEOF", []string{"cat <<EOF", "touch F"}, false, true},
	{"cat <<-EOF\n\t`touch F`\n\tEOF", []string{"cat <<-EOF", "touch F"}, false, true},
	{"cat > f.txt <<'EOF'\nrm -rf /\nEOF", []string{"cat >f.txt <<EOF"}, true, false},
	{"cat <<< \"hi\"", []string{"cat <<<hi"}, true, false},
	{"cat <<< $(touch F)", []string{"cat <<<$(touch F)", "touch F"}, false, true},
	{"bash <<'EOF'\ntouch F\nEOF", []string{"!bash <<EOF", "touch F"}, false, true},
	{"sh <<< 'touch F'", []string{"!sh <<<'touch F'", "touch F"}, false, true},
	{"bash <<EOF\n$X\nEOF", []string{"?bash <<EOF"}, false, false},

	// Redirections are in a part's text, after its words.
	{"touch F >/dev/null", []string{"touch F >/dev/null"}, false, true},
	{">/dev/null touch F", []string{"touch F >/dev/null"}, false, true},
	{"touch >/dev/null F", []string{"touch F >/dev/null"}, false, true},
	{"echo hi > out.txt", []string{"echo hi >out.txt"}, true, false},
	{"echo hi >> out.txt 2> err.txt", []string{"echo hi >>out.txt 2>err.txt"}, true, false},
	{"go test &> log", []string{"go test &>log"}, true, false},
	{"cat < in.txt", []string{"cat <in.txt"}, true, false},
	{"echo x >'a b'", []string{"echo x >'a b'"}, true, false},
	{"> F", []string{">F"}, false, false},
	{">F", []string{">F"}, false, false},
	{"exec 3>out", []string{"exec 3>out"}, false, false},
	{"echo x >$(touch F)", []string{"echo x >$(touch F)", "touch F"}, false, true},
	{"ls {fd}>x", []string{"ls {fd}>x"}, true, false},

	// Quoting and escapes: the name is the command it runs.
	{"t\\ouch F", []string{"touch F"}, false, true},
	{"\\touch F", []string{"touch F"}, false, true},
	{"'touch' F", []string{"touch F"}, false, true},
	{"\"touch\" F", []string{"touch F"}, false, true},
	{"to''uch F", []string{"touch F"}, false, true},
	{"to\"\"uch F", []string{"touch F"}, false, true},
	{"$'touch' F", []string{"touch F"}, false, true},
	{"$'\\x74ouch' F", []string{"touch F"}, false, true},
	{"$'\\164ouch' F", []string{"touch F"}, false, true},
	{"$\"touch\" F", []string{"touch F"}, false, true},
	{"\"touch F\"", []string{"'touch F'"}, false, false},
	{"'touch F'", []string{"'touch F'"}, false, false},
	{"touch \"a b\"", []string{"touch 'a b'"}, false, true},
	{"echo 'a b' \"c\" d", []string{"echo 'a b' c d"}, true, false},
	{"echo 'a;b'", []string{"echo 'a;b'"}, true, false},
	{"echo \"it's\"", []string{"echo \"it's\""}, true, false},
	{"echo ''", []string{"echo ''"}, true, false},
	{"echo \"\"", []string{"echo ''"}, true, false},
	{"echo a\\ b", []string{"echo 'a b'"}, true, false},
	{"echo \\$HOME", []string{"echo '$HOME'"}, true, false},
	{"echo '$(touch F)'", []string{"echo '$(touch F)'"}, true, false},
	{"echo \"\\$(touch F)\"", []string{"echo '$(touch F)'"}, true, false},
	{"echo a\\;touch F", []string{"echo 'a;touch' F"}, true, false},
	{"grep -e 'a|b' x", []string{"grep -e 'a|b' x"}, true, false},
	{"grep 'a && b'", []string{"grep 'a && b'"}, true, false},
	{"echo $'a\\nb'", []string{"echo $'a\\nb'"}, true, false},
	{"echo -- -n", []string{"echo -- -n"}, true, false},
	{"rm -rf \"/\"", []string{"rm -rf /"}, false, false},
	{"go test -run 'Test(A|B)' ./...", []string{"go test -run 'Test(A|B)' ./..."}, true, false},
	{"go test -count=1 ./...", []string{"go test -count=1 ./..."}, true, false},

	// Paths: the command by its name, and as written.
	{"/usr/bin/touch F", []string{"/usr/bin/touch F", "touch F"}, false, true},
	{"./x/touch F", []string{"./x/touch F", "touch F"}, false, true},
	{"../touch F", []string{"../touch F", "touch F"}, false, true},
	{"~/bin/touch F", []string{"~/bin/touch F", "touch F"}, false, true},
	{"\"/usr/bin/touch\" F", []string{"/usr/bin/touch F", "touch F"}, false, true},
	{"/usr/bin//touch F", []string{"/usr/bin//touch F", "touch F"}, false, true},
	{"touch/ F", []string{"touch/ F", "touch F"}, false, true},
	{"/usr/local/go/bin/go test ./...", []string{"/usr/local/go/bin/go test ./...", "go test ./..."}, false, false},
	{"./go test ./...", []string{"./go test ./...", "go test ./..."}, false, false},
	{"/bin/ls", []string{"/bin/ls", "ls"}, false, false},
	{"/", []string{"/"}, false, false},
	{"./touch.sh", []string{"./touch.sh", "touch.sh"}, false, false},

	// Assignments before the name: the command with them, then alone.
	{"A=1 touch F", []string{"A=1 touch F", "touch F"}, false, true},
	{"A=1 B=\"x y\" touch F", []string{"A=1 B=\"x y\" touch F", "touch F"}, false, true},
	{"GOFLAGS=-v go test ./...", []string{"GOFLAGS=-v go test ./...", "go test ./..."}, false, false},
	{"PATH=/tmp/evil:$PATH go test", []string{"PATH=/tmp/evil:$PATH go test", "go test"}, false, false},
	{"A=1", []string{"A=1"}, false, false},
	{"A=1; touch F", []string{"A=1", "touch F"}, false, true},
	{"A=$(touch F)", []string{"A=$(touch F)", "touch F"}, false, true},
	{"a=(1 $(touch F))", []string{"a=(1 $(touch F))", "touch F"}, false, true},
	{"export PATH=/tmp:$PATH; go test", []string{"export PATH=/tmp:$PATH", "go test"}, false, false},
	{"export A=$(touch F)", []string{"export A=$(touch F)", "touch F"}, false, true},
	{"local x=1", []string{"local x=1"}, false, false},
	{"declare -a x", []string{"declare -a x"}, false, false},
	{"readonly X", []string{"readonly X"}, false, false},
	{"\"A=1\" touch F", []string{"A=1 touch F"}, false, false},

	// Harmless wrappers: seen through.
	{"env touch F", []string{"~env touch F", "touch F"}, false, true},
	{"env go test", []string{"~env go test", "go test"}, true, false},
	{"command touch F", []string{"~command touch F", "touch F"}, false, true},
	{"command go test", []string{"~command go test", "go test"}, true, false},
	{"command -p touch F", []string{"~command -p touch F", "touch F"}, false, true},
	{"command -v touch", []string{"command -v touch"}, false, false},
	{"command -V go", []string{"command -V go"}, false, false},
	{"builtin echo hi", []string{"~builtin echo hi", "echo hi"}, true, false},
	{"exec touch F", []string{"~exec touch F", "touch F"}, false, true},
	{"exec -a x touch F", []string{"~exec -a x touch F", "touch F"}, false, true},
	{"exec go test", []string{"~exec go test", "go test"}, true, false},
	{"exec", []string{"exec"}, false, false},
	{"exec >log", []string{"exec >log"}, false, false},
	{"nohup touch F", []string{"~nohup touch F", "touch F"}, false, true},
	{"nohup go test &", []string{"~nohup go test", "go test"}, true, false},
	{"nohup", []string{"nohup"}, false, false},
	{"nice touch F", []string{"~nice touch F", "touch F"}, false, true},
	{"nice -n 10 touch F", []string{"~nice -n 10 touch F", "touch F"}, false, true},
	{"nice -n10 touch F", []string{"~nice -n10 touch F", "touch F"}, false, true},
	{"nice -10 touch F", []string{"~nice -10 touch F", "touch F"}, false, true},
	{"nice --adjustment=5 go test", []string{"~nice --adjustment=5 go test", "go test"}, true, false},
	{"timeout 5 touch F", []string{"~timeout 5 touch F", "touch F"}, false, true},
	{"timeout -s KILL 5 touch F", []string{"~timeout -s KILL 5 touch F", "touch F"}, false, true},
	{"timeout --signal=KILL -k 1 5 touch F", []string{"~timeout --signal=KILL -k 1 5 touch F", "touch F"}, false, true},
	{"timeout 60 go test ./...", []string{"~timeout 60 go test ./...", "go test ./..."}, true, false},
	{"timeout 5", []string{"timeout 5"}, false, false},
	{"stdbuf -oL touch F", []string{"~stdbuf -oL touch F", "touch F"}, false, true},
	{"stdbuf -o L go test", []string{"~stdbuf -o L go test", "go test"}, true, false},
	{"ionice -c3 touch F", []string{"~ionice -c3 touch F", "touch F"}, false, true},
	{"ionice -p 12", []string{"ionice -p 12"}, false, false},
	{"setsid touch F", []string{"~setsid touch F", "touch F"}, false, true},
	{"setsid -f go test", []string{"~setsid -f go test", "go test"}, true, false},
	{"\\time touch F", []string{"~time touch F", "touch F"}, false, true},
	{"/usr/bin/time -v go test", []string{"/usr/bin/time -v go test", "~time -v go test", "go test"}, false, false},
	{"command time -o ~/.bashrc go test", []string{"~command time -o ~/.bashrc go test", "time -o ~/.bashrc go test", "go test"}, false, false},
	{"busybox touch F", []string{"~busybox touch F", "touch F"}, false, true},
	{"noglob touch F", []string{"~noglob touch F", "touch F"}, false, true},
	{"nohup nice -n 5 timeout 10 touch F", []string{"~nohup nice -n 5 timeout 10 touch F", "~nice -n 5 timeout 10 touch F",
		"~timeout 10 touch F", "touch F"}, false, true},
	{"nohup nice timeout 10 go test", []string{"~nohup nice timeout 10 go test", "~nice timeout 10 go test",
		"~timeout 10 go test", "go test"}, true, false},
	{"env -- touch F", []string{"~env -- touch F", "touch F"}, false, true},
	{"nice -- go test", []string{"~nice -- go test", "go test"}, true, false},
	{"/usr/bin/env touch F", []string{"/usr/bin/env touch F", "~env touch F", "touch F"}, false, true},
	{"nohup /usr/bin/touch F", []string{"~nohup /usr/bin/touch F", "/usr/bin/touch F", "touch F"}, false, true},
	{"command command touch F", []string{"~command command touch F", "~command touch F", "touch F"}, false, true},

	// Wrappers an allow needs too: they change who runs it, its
	// environment, its words.
	{"env A=1 touch F", []string{"env A=1 touch F", "touch F"}, false, true},
	{"env A=1 go test", []string{"env A=1 go test", "go test"}, false, false},
	{"env -i touch F", []string{"env -i touch F", "touch F"}, false, true},
	{"env -u HOME touch F", []string{"env -u HOME touch F", "touch F"}, false, true},
	{"env -C /tmp touch F", []string{"env -C /tmp touch F", "touch F"}, false, true},
	{"env - touch F", []string{"env - touch F", "touch F"}, false, true},
	{"env -iu X A=1 touch F", []string{"env -iu X A=1 touch F", "touch F"}, false, true},
	{"env", []string{"env"}, false, false},
	{"env A=1", []string{"env A=1"}, false, false},
	{"sudo touch F", []string{"sudo touch F", "touch F"}, false, true},
	{"sudo go test", []string{"sudo go test", "go test"}, false, false},
	{"sudo -u root touch F", []string{"sudo -u root touch F", "touch F"}, false, true},
	{"sudo -uroot -E touch F", []string{"sudo -uroot -E touch F", "touch F"}, false, true},
	{"sudo --user=root -- touch F", []string{"sudo --user=root -- touch F", "touch F"}, false, true},
	{"sudo -l", []string{"sudo -l"}, false, false},
	{"sudo -e /etc/hosts", []string{"sudo -e /etc/hosts"}, false, false},
	{"sudo -s", []string{"?sudo -s"}, false, false},
	{"sudo -i", []string{"?sudo -i"}, false, false},
	{"sudo -s touch F", []string{"sudo -s touch F", "touch F"}, false, true},
	{"doas touch F", []string{"doas touch F", "touch F"}, false, true},
	{"doas -u root touch F", []string{"doas -u root touch F", "touch F"}, false, true},
	{"doas -s", []string{"?doas -s"}, false, false},
	{"sudo env A=1 /usr/bin/touch F", []string{"sudo env A=1 /usr/bin/touch F", "env A=1 /usr/bin/touch F", "/usr/bin/touch F", "touch F"}, false, true},
	{"ls | xargs touch", []string{"ls", "xargs touch", "touch"}, false, true},
	{"ls | xargs -0 -n 1 touch", []string{"ls", "xargs -0 -n 1 touch", "touch"}, false, true},
	{"ls | xargs -I{} touch {}", []string{"ls", "xargs -I{} touch {}", "touch {}"}, false, true},
	{"ls | xargs -I {} touch {}", []string{"ls", "xargs -I {} touch {}", "touch {}"}, false, true},
	{"ls | xargs go test", []string{"ls", "xargs go test", "go test"}, false, false},
	{"ls | xargs", []string{"ls", "xargs"}, false, false},
	{"find . -exec touch {} \\;", []string{"find . -exec touch {} ';'", "touch {}"}, false, true},
	{"find . -name '*.go' -execdir touch {} +", []string{"find . -name *.go -execdir touch {} +", "touch {}"}, false, true},
	{"find . -ok rm {} \\; -exec touch {} \\;", []string{"find . -ok rm {} ';' -exec touch {} ';'", "rm {}", "touch {}"}, false, true},
	{"find . -name x", []string{"find . -name x"}, false, false},
	{"find . -exec sh -c 'touch F' \\;", []string{"find . -exec sh -c 'touch F' ';'", "!sh -c 'touch F'", "touch F"}, false, true},

	// What no rule can allow; a deny still sees the commands in it.
	{"eval touch F", []string{"!eval touch F", "touch F"}, false, true},
	{"eval 'touch F'", []string{"!eval 'touch F'", "touch F"}, false, true},
	{"eval \"go test\"", []string{"!eval 'go test'", "go test"}, false, false},
	{"eval \"$X\"", []string{"?eval \"$X\""}, false, false},
	{"eval", []string{"!eval"}, false, false},
	{"sh -c 'touch F'", []string{"!sh -c 'touch F'", "touch F"}, false, true},
	{"bash -c 'go test'", []string{"!bash -c 'go test'", "go test"}, false, false},
	{"bash -c \"touch F; ls\"", []string{"!bash -c 'touch F; ls'", "touch F", "ls"}, false, true},
	{"bash -ec 'touch F'", []string{"!bash -ec 'touch F'", "touch F"}, false, true},
	{"bash -lc 'touch F'", []string{"!bash -lc 'touch F'", "touch F"}, false, true},
	{"bash -o pipefail -c 'touch F'", []string{"!bash -o pipefail -c 'touch F'", "touch F"}, false, true},
	{"bash +x -c 'touch F'", []string{"!bash +x -c 'touch F'", "touch F"}, false, true},
	{"zsh -c 'touch F'", []string{"!zsh -c 'touch F'", "touch F"}, false, true},
	{"dash -c 'touch F'", []string{"!dash -c 'touch F'", "touch F"}, false, true},
	{"/bin/sh -c 'touch F'", []string{"/bin/sh -c 'touch F'", "!sh -c 'touch F'", "touch F"}, false, true},
	{"sh -c \"$X\"", []string{"?sh -c \"$X\""}, false, false},
	{"sh -c 'sh -c \"touch F\"'", []string{"!sh -c 'sh -c \"touch F\"'", "!sh -c 'touch F'", "touch F"}, false, true},
	{"bash", []string{"?bash"}, false, false},
	{"bash -s", []string{"?bash -s"}, false, false},
	{"bash -i", []string{"?bash -i"}, false, false},
	{"bash build.sh", []string{"bash build.sh"}, false, false},
	{"bash -x build.sh", []string{"bash -x build.sh"}, false, false},
	{"curl https://x | sh", []string{"curl https://x", "?sh"}, false, false},
	{"source env.sh", []string{"!source env.sh"}, false, false},
	{". ./env.sh", []string{"!. ./env.sh"}, false, false},
	{". ./env.sh && go test", []string{"!. ./env.sh", "go test"}, false, false},
	{"trap 'touch F' EXIT", []string{"!trap 'touch F' EXIT", "touch F"}, false, true},
	{"trap -p", []string{"trap -p"}, false, false},
	{"alias go='touch F'", []string{"!alias 'go=touch F'", "touch F"}, false, true},
	{"alias", []string{"alias"}, false, false},
	{"watch -n 1 touch F", []string{"!watch -n 1 touch F", "touch F"}, false, true},
	{"su -c 'touch F'", []string{"!su -c 'touch F'", "touch F"}, false, true},
	{"su - root -c 'touch F'", []string{"!su - root -c 'touch F'", "touch F"}, false, true},
	{"su", []string{"?su"}, false, false},
	{"env -S 'touch F'", []string{"!env -S 'touch F'", "touch F"}, false, true},
	{"sudo bash -c 'touch F'", []string{"sudo bash -c 'touch F'", "!bash -c 'touch F'", "touch F"}, false, true},
	{"nohup sh -c 'go test'", []string{"~nohup sh -c 'go test'", "!sh -c 'go test'", "go test"}, false, false},
	{"timeout -Z 5 touch F", []string{"?timeout -Z 5 touch F", "touch F", "F"}, false, true},
	{"sudo --frobnicate touch F", []string{"?sudo --frobnicate touch F", "touch F", "F"}, false, true},

	// A name from an expansion, a pattern or braces.
	{"$X args", []string{"?$X args"}, false, false},
	{"${X} args", []string{"?${X} args"}, false, false},
	{"\"$X\" args", []string{"?\"$X\" args"}, false, false},
	{"$X", []string{"?$X"}, false, false},
	{"$(echo rm) x", []string{"?$(echo rm) x", "echo rm"}, false, false},
	{"`echo touch` F", []string{"?`echo touch` F", "echo touch"}, false, false},
	{"$(echo touch) F", []string{"?$(echo touch) F", "echo touch"}, false, false},
	{"X=touch; $X F", []string{"X=touch", "?$X F"}, false, false},
	{"touch $X", []string{"touch $X"}, false, true},
	{"touch \"$@\"", []string{"touch \"$@\""}, false, true},
	{"/usr/bin/tou?h F", []string{"?/usr/bin/tou?h F"}, false, false},
	{"tou*h F", []string{"?tou*h F"}, false, false},
	{"/usr/bin/[t]ouch F", []string{"?/usr/bin/[t]ouch F"}, false, false},
	{"[ -f x ]", []string{"[ -f x ]"}, false, false},
	{"{touch,F}", []string{"!{touch,F}", "touch F"}, false, true},
	{"{go,test}", []string{"!{go,test}", "go test"}, false, false},
	{"mkdir -p src/{a,b}", []string{"mkdir -p src/{a,b}", "mkdir -p src/a src/b"}, false, false},
	{"echo {a,b}", []string{"echo {a,b}", "echo a b"}, true, false},
	{"echo {1..3}", []string{"echo {1..3}", "echo 1 2 3"}, true, false},
	{"echo {a,b}; touch F", []string{"echo {a,b}", "echo a b", "touch F"}, false, true},
	{"echo {}", []string{"echo {}"}, true, false},
	{"echo {1..100000}", []string{"echo {1..100000}", "?echo {1..100000}"}, false, false},
	{"=touch F", []string{"!=touch F", "touch F"}, false, true},
	{"ls *(e:'touch F':)", []string{"?ls *(e:'touch F':)"}, false, false},
	{"ls @(a|b)", []string{"?ls @(a|b)"}, false, false},
	{"ls *.go", []string{"ls *.go"}, true, false},

	// Text that does not parse: one raw part, which a deny still sees.
	{"echo (", []string{"?echo (", "!echo"}, false, false},
	{"touch F (", []string{"?touch F (", "!touch F", "!F"}, false, true},
	{"if true; then touch F", []string{"?if true; then touch F", "!if true", "!true", "!then touch F", "!touch F", "!F"}, false, true},
	{"echo 'unterminated", []string{"?echo 'unterminated", "!echo unterminated", "!unterminated"}, false, false},
	{"go test && ", []string{"?go test && ", "!go test", "!test"}, false, false},
	{"go test ;;", []string{"?go test ;;", "!go test", "!test"}, false, false},
	{"a[1]=x touch F", []string{"?a[1]=x touch F", "!touch F", "!F"}, false, true},
	{"echo $((", []string{"?echo $((", "!echo $"}, false, false},
	{"foreach x (a) touch F; end", []string{"?foreach x (a) touch F; end", "!foreach x", "!x", "!a", "!touch F", "!F", "!end"}, false, true},
	{"touch F\x00", []string{"touch F"}, false, true},
	{"ls\x00; touch F", []string{"ls", "touch F"}, false, true},

	// Arithmetic, subscripts and expansions that evaluate a value as code:
	// opaque. A deny in force then reads the line's quoted text as commands.
	{"go test -count=$(( 'a[$(touch MADE)]' )) ./...", []string{"?go test -count=$(( 'a[$(touch MADE)]' )) ./...", ": a[$(touch MADE)]", "touch MADE"}, false, true},
	{"for x in 'a[$(touch F)]'; do go test -count=$((x)) ./...; done", []string{"?go test -count=$((x)) ./...", ": a[$(touch F)]", "touch F"}, false, true},
	{"x='a[$(touch F)]'; echo $((x))", []string{"x='a[$(touch F)]'", "?echo $((x))", ": a[$(touch F)]", "touch F"}, false, true},
	{"echo $((x))", []string{"?echo $((x))"}, false, false},
	{"echo $((1 + 2)) $((0x1f)) $((2#101))", []string{"echo $((1 + 2)) $((0x1f)) $((2#101))"}, true, false},
	{"echo $(( $# + 1 ))", []string{"echo $(( $# + 1 ))"}, true, false},
	{"echo $[x]", []string{"?echo $[x]"}, false, false},
	{"echo ${x@P}", []string{"?echo ${x@P}"}, false, false},
	{"x='$(touch F)'; echo ${x@P}", []string{"x='$(touch F)'", "?echo ${x@P}", "?$(touch F)", "touch F"}, false, true},
	{"echo ${x@Q}", []string{"echo ${x@Q}"}, true, false},
	{"echo ${b[x]}", []string{"?echo ${b[x]}"}, false, false},
	{"echo ${b[0]}", []string{"echo ${b[0]}"}, true, false},
	{"echo ${a[@]} ${#a[@]} ${!a[@]} ${a[*]}", []string{"echo ${a[@]} ${#a[@]} ${!a[@]} ${a[*]}"}, true, false},
	{"echo ${!x}", []string{"?echo ${!x}"}, false, false},
	{"echo ${!prefix*}", []string{"echo ${!prefix*}"}, true, false},
	{"echo ${x:1:2}", []string{"echo ${x:1:2}"}, true, false},
	{"echo ${x:i}", []string{"?echo ${x:i}"}, false, false},
	{"echo ${x:-default} ${x#pre} ${x/a/b} ${x^^} ${#x}", []string{"echo ${x:-default} ${x#pre} ${x/a/b} ${x^^} ${#x}"}, true, false},
	{"echo ${x:-$((y))}", []string{"?echo ${x:-$((y))}"}, false, false},
	{"[[ 'a[$(touch F)]' -eq 0 ]]", []string{"?[[ 'a[$(touch F)]' -eq 0 ]]", ": a[$(touch F)]", "touch F"}, false, true},
	{"[[ $n -gt 0 ]]", []string{"?[[ $n -gt 0 ]]"}, false, false},
	{"[[ 1 -lt 2 ]]", []string{"[[ 1 -lt 2 ]]"}, false, false},
	{"[[ -v x ]]", []string{"[[ -v x ]]"}, false, false},
	{"[[ -v a[$i] ]]", []string{"?[[ -v a[$i] ]]"}, false, false},
	{"[[ $a == b ]]", []string{"[[ $a == b ]]"}, false, false},
	{"((x))", []string{"?((x))"}, false, false},
	{"(( 1 + 1 ))", []string{"(( 1 + 1 ))"}, false, false},
	{"let x=1", []string{"?let x=1"}, false, false},
	{"declare -i n", []string{"?declare -i n"}, false, false},
	{"declare -n ref=x", []string{"?declare -n ref=x"}, false, false},
	{"local -i n=1", []string{"?local -i n=1"}, false, false},
	{"typeset -ai n", []string{"?typeset -ai n"}, false, false},
	{"declare a[x]=1", []string{"?declare a[x]=1"}, false, false},
	{"declare \"$v\"", []string{"?declare \"$v\""}, false, false},
	{"builtin declare -i x", []string{"~builtin declare -i x", "?declare -i x"}, false, false},
	{"printf -v 'a[$(touch F)]' %s x", []string{"?printf -v 'a[$(touch F)]' %s x", ": a[$(touch F)]", "touch F"}, false, true},
	{"command printf -v 'a[$(touch F)]' x", []string{"~command printf -v 'a[$(touch F)]' x", "?printf -v 'a[$(touch F)]' x", ": a[$(touch F)]", "touch F"}, false, true},
	{"printf -v x %s \"$y\"", []string{"printf -v x %s \"$y\""}, false, false},
	{"printf '%d' \"$x\"", []string{"printf %d \"$x\""}, false, false},
	{"read 'a[$(touch F)]' <<< x", []string{"?read 'a[$(touch F)]' <<<x", ": a[$(touch F)]", "touch F"}, false, true},
	{"read -a arr", []string{"read -a arr"}, false, false},
	{"read -r line", []string{"read -r line"}, false, false},
	{"read -t \"$t\" line", []string{"read -t \"$t\" line"}, false, false},
	{"mapfile -C 'touch F' -c 1 arr < f", []string{"!mapfile -C 'touch F' -c 1 arr <f", "touch F"}, false, true},
	{"mapfile -t lines < f", []string{"mapfile -t lines <f"}, false, false},
	{"readarray \"$x\"", []string{"?readarray \"$x\""}, false, false},
	{"unset 'a[$(touch F)]'", []string{"?unset 'a[$(touch F)]'", ": a[$(touch F)]", "touch F"}, false, true},
	{"unset x", []string{"unset x"}, false, false},
	{"unset -f \"$f\"", []string{"unset -f \"$f\""}, false, false},
	{"test -v 'a[$(touch F)]'", []string{"?test -v 'a[$(touch F)]'", ": a[$(touch F)]", "touch F"}, false, true},
	{"[ -v x ]", []string{"[ -v x ]"}, false, false},
	{"[ \"$a\" = b ]", []string{"[ \"$a\" = b ]"}, false, false},
	{"[ -f \"$f\" ]", []string{"[ -f \"$f\" ]"}, false, false},
	{"[ \"$a\" \"$b\" ]", []string{"?[ \"$a\" \"$b\" ]"}, false, false},
	{"[ \"$a\" ]", []string{"[ \"$a\" ]"}, false, false},
	{"getopts ab 'a[$(touch F)]'", []string{"?getopts ab 'a[$(touch F)]'", ": a[$(touch F)]", "touch F"}, false, true},
	{"wait -p 'a[$(touch F)]'", []string{"?wait -p 'a[$(touch F)]'", ": a[$(touch F)]", "touch F"}, false, true},
	{"a[$(touch F)]=1", []string{"?a[$(touch F)]=1", "touch F"}, false, true},
	{"a[0]=x", []string{"a[0]=x"}, false, false},
	{"a=([k]=v)", []string{"?a=([k]=v)"}, false, false},
	{"a=(1 2)", []string{"a=(1 2)"}, false, false},
	{"x=$((y))", []string{"?x=$((y))"}, false, false},
	{"for ((i=0; i<3; i++)); do echo $i; done", []string{"?for ((i=0; i<3; i++))", "echo $i"}, false, false},
	{"for ((;;)); do break; done", []string{"break"}, false, false},
	{"case $((x)) in 1) echo;; esac", []string{"?case $((x)) in 1", "echo"}, false, false},
	{"cat <<EOF\n$((x))\nEOF", []string{"?cat <<EOF"}, false, false},
	{"echo '$(touch F)'", []string{"echo '$(touch F)'"}, true, false},
	{"echo '$(touch F)'; eval \"$X\"", []string{"echo '$(touch F)'", "?eval \"$X\"", "?$(touch F)", "touch F"}, false, true},
	{"echo \"\\$(touch F)\" $((x))", []string{"?echo '$(touch F)' $((x))", "?$(touch F)", "touch F"}, false, true},
	{"PS4='$(touch F)' bash -x s.sh", []string{"?PS4='$(touch F)' bash -x s.sh", "?bash -x s.sh", "?$(touch F)", "touch F"}, false, true},
	{"env PS4='$(touch F)' bash -x s.sh", []string{"?env 'PS4=$(touch F)' bash -x s.sh", "bash -x s.sh", "?$(touch F)", "touch F"}, false, true},
	{"export PS4='$(touch F)'", []string{"?export PS4='$(touch F)'", "?$(touch F)", "touch F"}, false, true},
	{"BASH_ENV=./x.sh bash s.sh", []string{"?BASH_ENV=./x.sh bash s.sh", "?bash s.sh", "./x.sh", "x.sh"}, false, false},
	{"PROMPT_COMMAND='touch F'", []string{"?PROMPT_COMMAND='touch F'", "touch F"}, false, true},
	{"env 'BASH_FUNC_go%%=() { touch F; }' bash s.sh", []string{"?env 'BASH_FUNC_go%%=() { touch F; }' bash s.sh", "bash s.sh", "touch F"}, false, true},
	{"BASH_CMDS[go]=/usr/bin/touch", []string{"?BASH_CMDS[go]=/usr/bin/touch", "/usr/bin/touch", "touch"}, false, true},
	{"printf -v PS4 %s '$(touch F)'; set -x", []string{"?printf -v PS4 %s '$(touch F)'", "set -x", "?$(touch F)", "touch F"}, false, true},
	{": ${PS4:='$(touch F)'}", []string{"?: ${PS4:='$(touch F)'}", "?$(touch F)", "touch F"}, false, true},
	{"read PS4", []string{"?read PS4"}, false, false},
	{"mapfile PS4 < f", []string{"?mapfile PS4 <f"}, false, false},
	{"sudo PS4='$(touch F)' bash -x s.sh", []string{"?sudo 'PS4=$(touch F)' bash -x s.sh", "bash -x s.sh", "?$(touch F)", "touch F"}, false, true},
	{"ls {a[$(touch F)]}>x", []string{"ls {a[$(touch F)]} >x", "touch F"}, false, true},

	// Commands that run the command in their words: a deny sees it.
	{"flock /tmp/l touch F", []string{"~flock /tmp/l touch F", "touch F"}, false, true},
	{"flock -n /tmp/l go test", []string{"~flock -n /tmp/l go test", "go test"}, true, false},
	{"flock /tmp/l -c 'touch F'", []string{"!flock /tmp/l -c 'touch F'", "touch F"}, false, true},
	{"flock 9", []string{"flock 9"}, false, false},
	{"chrt 1 touch F", []string{"~chrt 1 touch F", "touch F"}, false, true},
	{"chrt -f 99 go test", []string{"~chrt -f 99 go test", "go test"}, true, false},
	{"chrt -p 12", []string{"chrt -p 12"}, false, false},
	{"taskset 1 touch F", []string{"~taskset 1 touch F", "touch F"}, false, true},
	{"taskset -c 0 go test", []string{"~taskset -c 0 go test", "go test"}, true, false},
	{"taskset -p 1 12", []string{"taskset -p 1 12"}, false, false},
	{"prlimit --nofile=10 touch F", []string{"~prlimit --nofile=10 touch F", "touch F"}, false, true},
	{"prlimit -n10 go test", []string{"~prlimit -n10 go test", "go test"}, true, false},
	{"prlimit --pid 12", []string{"prlimit --pid 12"}, false, false},
	{"setpriv --reuid=1 touch F", []string{"setpriv --reuid=1 touch F", "touch F"}, false, true},
	{"setpriv --dump", []string{"setpriv --dump"}, false, false},
	{"unshare -r touch F", []string{"unshare -r touch F", "touch F"}, false, true},
	{"unshare -r", []string{"?unshare -r"}, false, false},
	{"script -c 'touch F'", []string{"!script -c 'touch F'", "touch F"}, false, true},
	{"script -qc 'touch F' /dev/null", []string{"!script -qc 'touch F' /dev/null", "touch F"}, false, true},
	{"script -q /dev/null touch F", []string{"!script -q /dev/null touch F", "touch F"}, false, true},
	{"script out.log", []string{"?script out.log"}, false, false},
	{"strace touch F", []string{"strace touch F", "touch F"}, false, true},
	{"strace -f -o x touch F", []string{"strace -f -o x touch F", "touch F"}, false, true},
	{"strace -p 12", []string{"strace -p 12"}, false, false},
	{"ltrace touch F", []string{"ltrace touch F", "touch F"}, false, true},
	{"sg grp 'touch F'", []string{"!sg grp 'touch F'", "touch F"}, false, true},
	{"sg grp -c 'touch F'", []string{"!sg grp -c 'touch F'", "touch F"}, false, true},
	{"sg grp", []string{"?sg grp"}, false, false},
	{"parallel touch ::: F", []string{"!parallel touch ::: F", "touch F"}, false, true},
	{"parallel 'touch {}' ::: F", []string{"!parallel 'touch {}' ::: F", "touch {} F"}, false, true},
	{"parallel -j2 touch ::: a b", []string{"!parallel -j2 touch ::: a b", "touch a b"}, false, true},
	{"parallel", []string{"?parallel"}, false, false},
	{"ionice -c 2 -n 7 touch F", []string{"~ionice -c 2 -n 7 touch F", "touch F"}, false, true},
	{"ionice -t -c3 touch F", []string{"~ionice -t -c3 touch F", "touch F"}, false, true},
	{"doas -n touch F", []string{"doas -n touch F", "touch F"}, false, true},
	{"doas -- touch F", []string{"doas -- touch F", "touch F"}, false, true},
	{"run0 touch F", []string{"run0 touch F", "touch F"}, false, true},
	{"run0", []string{"?run0"}, false, false},
	{"systemd-run touch F", []string{"systemd-run touch F", "touch F"}, false, true},
	{"systemd-run --user -p X=1 --wait touch F", []string{"systemd-run --user -p X=1 --wait touch F", "touch F"}, false, true},
	{"systemd-run -S", []string{"?systemd-run -S"}, false, false},
	{"firejail touch F", []string{"firejail touch F", "touch F"}, false, true},
	{"firejail --noprofile --net=none touch F", []string{"firejail --noprofile --net=none touch F", "touch F"}, false, true},
	{"firejail", []string{"?firejail"}, false, false},
	{"nsenter -t 1 -m touch F", []string{"nsenter -t 1 -m touch F", "touch F"}, false, true},
	{"nsenter -a -t1", []string{"?nsenter -a -t1"}, false, false},
	{"chroot / touch F", []string{"chroot / touch F", "touch F"}, false, true},
	{"chroot /srv", []string{"?chroot /srv"}, false, false},
	{"pkexec touch F", []string{"pkexec touch F", "touch F"}, false, true},
	{"runuser -u nobody touch F", []string{"runuser -u nobody touch F", "touch F"}, false, true},
	{"runuser -u nobody -- touch F", []string{"runuser -u nobody -- touch F", "touch F"}, false, true},
	{"runuser nobody -c 'touch F'", []string{"!runuser nobody -c 'touch F'", "touch F"}, false, true},
	{"setarch x86_64 -R touch F", []string{"setarch x86_64 -R touch F", "touch F"}, false, true},
	{"eatmydata touch F", []string{"~eatmydata touch F", "touch F"}, false, true},
	{"caffeinate -i touch F", []string{"~caffeinate -i touch F", "touch F"}, false, true},
	{"unbuffer touch F", []string{"~unbuffer touch F", "touch F"}, false, true},
	{"fakeroot touch F", []string{"fakeroot touch F", "touch F"}, false, true},
	{"gtimeout 5 touch F", []string{"~gtimeout 5 touch F", "touch F"}, false, true},
	{"time -p -- touch F", []string{"~time -p -- touch F", "~-- touch F", "touch F"}, false, true},
	{"time -p -- go test", []string{"~time -p -- go test", "~-- go test", "go test"}, true, false},
	{"exec -a name touch F", []string{"~exec -a name touch F", "touch F"}, false, true},
	{"exec -a touch F", []string{"~exec -a touch F", "F"}, false, false},
	{"command -p -- touch F", []string{"~command -p -- touch F", "touch F"}, false, true},
	{"env -S'touch F'", []string{"!env '-Stouch F'", "touch F"}, false, true},
	{"env --split-string='touch F'", []string{"!env '--split-string=touch F'", "touch F"}, false, true},
	{"env -S \"$X\"", []string{"?env -S \"$X\""}, false, false},
	{"busybox sh -c 'touch F'", []string{"~busybox sh -c 'touch F'", "!sh -c 'touch F'", "touch F"}, false, true},
	{"xargs -I{} sh -c 'touch {}'", []string{"xargs -I{} sh -c 'touch {}'", "!sh -c 'touch {}'", "touch {}"}, false, true},
	{"xargs sh -c \"$X\"", []string{"xargs sh -c \"$X\"", "?sh -c \"$X\""}, false, false},
	{"watch -n1 'touch F'", []string{"!watch -n1 'touch F'", "touch F"}, false, true},
	{"watch \"$X\"", []string{"?watch \"$X\""}, false, false},
	{"sudo A=1 touch F", []string{"sudo A=1 touch F", "touch F"}, false, true},
	{"sudo --frob x touch F", []string{"?sudo --frob x touch F", "x touch F", "touch F"}, false, true},

	// Names the line makes run another command, or a command from elsewhere.
	{"T=touch; $T F", []string{"T=touch", "?$T F"}, false, false},
	{"hash -p /usr/bin/touch t; t F", []string{"?hash -p /usr/bin/touch t", "?t F", "touch F"}, false, true},
	{"hash -r", []string{"hash -r"}, false, false},
	{"alias t=touch\nt F", []string{"!alias t=touch", "touch", "?t F", "touch F"}, false, true},
	{"alias t=\"$X\"", []string{"?alias t=\"$X\""}, false, false},
	{"enable -n echo; echo F", []string{"?enable -n echo", "echo F"}, false, false},
	{"enable -f ./x.so touch", []string{"?enable -f ./x.so touch"}, false, false},
	{"enable", []string{"enable"}, false, false},
	{"f() { touch F; }; f", []string{"touch F", "f"}, false, true},
	{"bash < ./x.sh", []string{"!bash <./x.sh"}, false, false},
	{"bash <(echo touch F)", []string{"?bash <(echo touch F)", "echo touch F"}, false, false},
	{"bash < <(echo touch F)", []string{"?bash <<(echo touch F)", "echo touch F"}, false, false},
	{"bash \"$f\"", []string{"?bash \"$f\""}, false, false},
	{"bash -", []string{"?bash -"}, false, false},
	{"bash /dev/stdin <<< 'touch F'", []string{"!bash /dev/stdin <<<'touch F'", "touch F"}, false, true},
	{"source /dev/stdin <<< 'touch F'", []string{"!source /dev/stdin <<<'touch F'", "touch F"}, false, true},
	{"echo 'touch F' | source /dev/stdin", []string{"echo 'touch F'", "?source /dev/stdin"}, false, false},
	{"source <(echo touch F)", []string{"?source <(echo touch F)", "echo touch F"}, false, false},
	{". \"$f\"", []string{"?. \"$f\""}, false, false},
	{"source ./env.sh", []string{"!source ./env.sh"}, false, false},
	{"bash -x build.sh", []string{"bash -x build.sh"}, false, false},
	{"bash -s -- a b <<'EOF'\ntouch F\nEOF", []string{"!bash -s -- a b <<EOF", "touch F"}, false, true},

	// Text that does not parse: a deny reads pieces of it.
	{"echo 'x; touch F", []string{"?echo 'x; touch F", "!echo x", "!x", "!touch F", "!F"}, false, true},
	{"go test `touch F", []string{"?go test `touch F", "!go test", "!test", "!touch F", "!F"}, false, true},
	{"sudo -u root 'touch' F (", []string{"?sudo -u root 'touch' F (", "!sudo -u root touch F", "!root touch F", "!touch F", "!F"}, false, true},
	{"/usr/bin/touch F (", []string{"?/usr/bin/touch F (", "!/usr/bin/touch F", "!touch F", "!F"}, false, true},
	{"A=1 nohup touch F (", []string{"?A=1 nohup touch F (", "!nohup touch F", "!touch F", "!F"}, false, true},

	// Redirections: an allow whose pattern stops before the end does not
	// allow a part that writes outside the working folder.
	{"go test ./... > ~/.bashrc", []string{"go test ./... >~/.bashrc"}, false, false},
	{"go test ./... > out.txt", []string{"go test ./... >out.txt"}, true, false},
	{"go test ./... > /dev/null 2>&1", []string{"go test ./... >/dev/null 2>&1"}, true, false},
	{"echo x > /tmp/x", []string{"echo x >/tmp/x"}, false, false},
	{"echo x >> ../x", []string{"echo x >>../x"}, false, false},
	{"echo x > \"$F\"", []string{"echo x >\"$F\""}, false, false},
	{"go test &> ~/x", []string{"go test &>~/x"}, false, false},
	{"echo x >& ~/x", []string{"echo x >&~/x"}, false, false},
	{"echo x >&2", []string{"echo x >&2"}, true, false},
	{"cat < /etc/passwd", []string{"cat </etc/passwd"}, true, false},

	// Unicode: only ASCII blanks part words; look-alike names are other
	// commands.
	{"echo héllo wörld", []string{"echo héllo wörld"}, true, false},
	{"echo 数据库 🚀", []string{"echo 数据库 🚀"}, true, false},
	{"tоuch F", []string{"tоuch F"}, false, false}, // a Cyrillic о
	{"touch\u00a0F", []string{"$'touch\\u00a0F'"}, false, false},
	{"touch F\u00a0", []string{"touch $'F\\u00a0'"}, false, true},
	{"echo \u202e; touch F", []string{"echo $'\\u202e'", "touch F"}, false, true},
	{"echo $'\\xff'", []string{"echo $'\\xff'"}, true, false},
}

// render writes parts as the table does.
func render(parts []Part) []string {
	var out []string
	for _, p := range parts {
		s := p.Text
		if p.Through {
			s = "~" + s
		}
		switch {
		case p.Opaque:
			s = "?" + s
		case p.Unjudged != "":
			s = "!" + s
		}
		out = append(out, s)
	}
	return out
}

func commandSets(t testing.TB) (allow, deny *Set) {
	t.Helper()
	parse := func(decide, re string) *Set {
		f, err := Parse("r.yaml", []byte(fmt.Sprintf("version: 1\npermissions:\n  - {name: r, when: {tool: Bash, command: %q}, decide: %s}\n", re, decide)))
		if err != nil {
			t.Fatal(err)
		}
		return &Set{Files: []*File{f}}
	}
	return parse("allow", allowedCommands), parse(`{deny: "no"}`, deniedCommands)
}

func bashCall(command string) Call {
	in, _ := json.Marshal(map[string]string{"command": command})
	return Call{Tool: "Bash", Input: in}
}

// TestReadCommand: each command line reads as the parts the table says,
// and an allow holds only when every part is allowed, a deny when one part
// is denied.
func TestReadCommand(t *testing.T) {
	allow, deny := commandSets(t)
	for _, tc := range commandCases {
		got := render(ReadCommand(tc.cmd))
		if strings.Join(got, "\n") != strings.Join(tc.parts, "\n") {
			t.Errorf("%q reads as\n\t%q\nwant\n\t%q", tc.cmd, got, tc.parts)
		}
		if a := allow.Permit(bashCall(tc.cmd)).Matched(); a != tc.allow {
			t.Errorf("%q: allowed by %s: %t, want %t", tc.cmd, allowedCommands, a, tc.allow)
		}
		d := deny.Permit(bashCall(tc.cmd))
		if (d.Rule == "r") != tc.deny {
			t.Errorf("%q: denied by %s: %t, want %t", tc.cmd, deniedCommands, d.Rule == "r", tc.deny)
		}
		// A deny in force refuses what it cannot see into.
		opaque := strings.Contains("\n"+strings.Join(tc.parts, "\n"), "\n?")
		if !tc.deny && (d.Rule == UnjudgedRule) != opaque {
			t.Errorf("%q: refused as unjudged: %t, want %t (%+v)", tc.cmd, d.Rule == UnjudgedRule, opaque, d)
		}
	}
}

// TestReadCommandSeparators: whatever joins two commands, each is a part
// of its own, judged alone.
func TestReadCommandSeparators(t *testing.T) {
	allow, deny := commandSets(t)
	for _, sep := range []string{";", " ; ", "&&", " && ", "||", " || ", "|", " | ", "|&", "&", " & ", "\n", "\n\n", " ;\n"} {
		for _, tc := range []struct {
			a, b          string
			allow, denied bool
		}{
			{"go test ./...", "touch F", false, true},
			{"touch F", "go test ./...", false, true},
			{"go test ./...", "echo ok", true, false},
			{"go test ./...", "rm -rf x", false, false},
			{"(go test)", "{ touch F; }", false, true},
			{"echo $(touch F)", "go test", false, true},
		} {
			line := tc.a + sep + tc.b
			if n := len(ReadCommand(line)); n < 2 {
				t.Errorf("%q reads as %d parts", line, n)
			}
			if a := allow.Permit(bashCall(line)).Matched(); a != tc.allow {
				t.Errorf("%q: allowed %t, want %t", line, a, tc.allow)
			}
			if d := deny.Permit(bashCall(line)).Matched(); d != tc.denied {
				t.Errorf("%q: denied %t, want %t", line, d, tc.denied)
			}
		}
	}
}

// TestReadCommandWrappers: a deny sees the command a wrapper runs, however
// it is named; an allow holds through a harmless wrapper only.
func TestReadCommandWrappers(t *testing.T) {
	allow, deny := commandSets(t)
	for _, tc := range []struct {
		wrapper  string
		harmless bool
	}{
		{"env", true}, {"command", true}, {"exec", true}, {"builtin", true}, {"nohup", true}, {"nice", true},
		{"nice -n 19", true}, {"setsid", true}, {"timeout 10", true}, {"timeout -k 1 10", true}, {"stdbuf -oL", true},
		{"ionice -c 3", true}, {"\\time", true}, {"time", true}, {"busybox", true}, {"noglob", true}, {"nocorrect", true},
		{"env -i", false}, {"env A=1", false}, {"sudo", false}, {"sudo -u root", false}, {"doas", false},
		{"xargs", false}, {"/usr/bin/env", false}, {"command time -o log", false}, {"A=1", false},
		{"nohup sudo", false}, {"sudo nohup", false}, {"nohup env", true}, {"env nohup nice", true},
	} {
		for _, name := range []string{"touch", "/usr/bin/touch", "./touch", "\\touch", "'touch'", "t\"\"ouch"} {
			line := tc.wrapper + " " + name + " F"
			if !deny.Permit(bashCall(line)).Matched() {
				t.Errorf("%q: not denied", line)
			}
		}
		line := tc.wrapper + " go test ./..."
		if a := allow.Permit(bashCall(line)).Matched(); a != tc.harmless {
			t.Errorf("%q: allowed %t, want %t", line, a, tc.harmless)
		}
	}
}

// TestReadCommandFrom: each part says where it was read.
func TestReadCommandFrom(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		from []string
	}{
		{"sudo /usr/bin/touch F", []string{"", "run by sudo", "run by sudo, by its name"}},
		{"A=1 nohup touch F", []string{"", "without its assignments", "without its assignments, run by nohup"}},
		{"bash -c 'env touch F'", []string{"", "inside bash -c", "inside bash -c, run by env"}},
		{"ls | xargs -0 rm", []string{"", "", "run by xargs, with words from its input"}},
		{"find . -exec rm {} +", []string{"", "run by find -exec"}},
		{"echo {a,b}", []string{"", "braces expanded"}},
		{"while :; do :; done >log", []string{"the redirections of a compound command", "", ""}},
	} {
		var got []string
		for _, p := range ReadCommand(tc.cmd) {
			got = append(got, p.From)
		}
		if strings.Join(got, "|") != strings.Join(tc.from, "|") {
			t.Errorf("%q: parts from %q, want %q", tc.cmd, got, tc.from)
		}
	}
}

// TestReadCommandLimits: a line too long or too deep to parse is a part of
// its raw text, opaque, then the pieces of it a deny may match: a deny
// still holds, no allow does. A long line within the limits is read whole,
// however many parts it has.
func TestReadCommandLimits(t *testing.T) {
	allow, deny := commandSets(t)
	everything := func(decide string) *Set {
		f, err := Parse("r.yaml", []byte("version: 1\npermissions:\n  - {when: {tool: Bash, command: '.*'}, decide: "+decide+"}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return &Set{Files: []*File{f}}
	}
	for _, tc := range []struct {
		name, cmd string
		unjudged  string
	}{
		{"too long", "touch F; " + strings.Repeat("echo x; ", MaxCommand/8), "longer than 64 KiB: not parsed"},
		{"too deep", "touch F; echo " + strings.Repeat("$(", maxNesting+1) + "x" + strings.Repeat(")", maxNesting+1),
			"brackets nested more than 200 deep: not parsed"},
		{"too deep, no closing", "touch " + strings.Repeat("(", 10_000), "brackets nested more than 200 deep: not parsed"},
		{"scripts in scripts", "touch F; " + strings.Repeat("eval ", 10) + "ls", "a script inside scripts 4 deep: not read"},
		{"too deep in a comment", "true; touch F # " + strings.Repeat("(", maxNesting+1), "brackets nested more than 200 deep: not parsed"},
		{"too long, touch last", strings.Repeat("echo x; ", MaxCommand/8) + "A=1 nohup /usr/bin/touch F", "longer than 64 KiB: not parsed"},
	} {
		parts := ReadCommand(tc.cmd)
		i := slices.IndexFunc(parts, func(p Part) bool { return p.Opaque })
		if i < 0 || parts[i].Unjudged != tc.unjudged {
			t.Errorf("%s: parts %.200q, want one opaque, unjudged %q", tc.name, render(parts), tc.unjudged)
		}
		if d := deny.Permit(bashCall(tc.cmd)); d.Rule != "r" {
			t.Errorf("%s: not denied by the rule: %+v", tc.name, d)
		}
		if everything("allow").Permit(bashCall(tc.cmd)).Matched() {
			t.Errorf("%s: allowed by an allow of every command", tc.name)
		}
	}
	// Within the limits: tens of thousands of parts, chained or listed.
	for _, sep := range []string{"&&", "|", ";", "||"} {
		line := strings.Repeat("ls"+sep, (MaxCommand-10)/(len(sep)+2)) + "ls"
		parts := ReadCommand(line)
		if len(parts) < 10_000 {
			t.Fatalf("%q…: %d parts", line[:20], len(parts))
		}
		if !allow.Permit(bashCall(line)).Matched() {
			t.Errorf("%q…: not allowed", line[:20])
		}
		if deny.Permit(bashCall(line+sep+"touch F")).Matched() != (len(line)+len(sep)+7 <= MaxCommand) {
			t.Errorf("%q…touch F: denied wrongly", line[:20])
		}
	}
	deep := "echo " + strings.Repeat("$(", maxNesting-1) + "touch F" + strings.Repeat(")", maxNesting-1)
	if !deny.Permit(bashCall(deep)).Matched() {
		t.Errorf("%d substitutions deep: touch not denied", maxNesting-1)
	}
}

// FuzzReadCommand checks that reading a command line never panics, and
// that an allow never holds for a line with a part no rule can allow: an
// allow of every command (to the end, $) holds exactly when every part can
// be judged and one is more than a wrapper; a deny of every command holds
// for any line that has a part. An opaque part is an unjudged one.
func FuzzReadCommand(f *testing.F) {
	for _, tc := range commandCases {
		f.Add(tc.cmd)
	}
	every := func(decide string) *Set {
		file, err := Parse("r.yaml", []byte("version: 1\npermissions:\n  - {when: {tool: Bash, command: '(?s).*$'}, decide: "+decide+"}\n"))
		if err != nil {
			f.Fatal(err)
		}
		return &Set{Files: []*File{file}}
	}
	allow, deny, yes := every("allow"), every(`{deny: "no"}`), every(`{select: "Yes, and don't ask again"}`)
	f.Fuzz(func(t *testing.T, command string) {
		ReadCommand(command) // as given, which may not be UTF-8
		// As the rules get it: from JSON, where invalid UTF-8 is U+FFFD.
		call := bashCall(command)
		var in struct{ Command string }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			t.Fatal(err)
		}
		command = in.Command
		parts := ReadCommand(command)
		judged, runs := true, false
		for _, p := range parts {
			if p.Unjudged != "" {
				judged = false
			}
			if !p.Through {
				runs = true
			}
			if p.Unjudged != "" && p.Through {
				t.Errorf("%q: part %q seen through and unjudged", command, p.Text)
			}
			if p.Opaque && p.Unjudged == "" {
				t.Errorf("%q: part %q opaque, not unjudged", command, p.Text)
			}
		}
		want := judged && runs
		if got := allow.Permit(bashCall(command)).Matched(); got != want {
			t.Errorf("%q: allowed %t, want %t: parts %q", command, got, want, render(parts))
		}
		if got := yes.Permit(bashCall(command)).Matched(); got != want {
			t.Errorf("%q: Yes selected %t, want %t: parts %q", command, got, want, render(parts))
		}
		if got := deny.Permit(bashCall(command)).Matched(); got != (len(parts) > 0) {
			t.Errorf("%q: denied %t with %d parts", command, got, len(parts))
		}
	})
}
