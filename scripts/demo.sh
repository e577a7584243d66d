#!/usr/bin/env bash
# make demo: the real Claude Code, offline, asks a three-question form
# (single-select, multi-select, typed answer); claudewrap answers it from
# examples/demo.yaml in this terminal, checks what Claude recorded, and exits
# when Claude's turn ends. Needs `make build claude` first (make demo does it).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${CLAUDE_VERSION:-2.1.332}
claude=".cache/claude-code/$version/node_modules/.bin/claude"
[ -x "$claude" ] || { echo "demo: $claude is missing: run make claude" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/claudewrap-demo.XXXXXX")
api_pid=
cleanup() {
  [ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home" "$work/project"

bin/fakeapi --scenario testdata/scenarios/three.yaml --port-file "$work/port" >"$work/api.out" 2>"$work/api.log" &
api_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "demo: the fake API did not start:" >&2; cat "$work/api.log" >&2; exit 1; }

# An isolated HOME, seeded past Claude Code's first-run dialogs.
key=sk-ant-api03-claudewrap-demo-key-0123456789abcdef
cat >"$work/home/.claude.json" <<JSON
{"hasCompletedOnboarding": true, "fullscreenUpsellSeenCount": 99, "hasSeenAutoDefaultNotice": true,
 "customApiKeyResponses": {"approved": ["${key: -20}"], "rejected": []},
 "projects": {"$work/project": {"hasTrustDialogAccepted": true}}}
JSON

headless=()
[ -t 0 ] || headless=(--headless)
rules="$PWD/examples/demo.yaml"
echo "== claudewrap demo =="
echo "The real Claude Code $version runs here offline: a fake Messages API plays the model and has"
echo "Claude ask one form of three questions (a database, features to build, a naming style)."
echo "claudewrap answers it from examples/demo.yaml, one confirmed key at a time on Claude's own"
echo "screen, then checks what Claude recorded. Claude is ended when its turn is over."
if [ -t 1 ]; then
  printf 'Starting Claude in 3 s (the form is answered within a second or two)...'
  sleep 3
  echo
fi
status=0
(cd "$work/project" && env -i PATH="$PATH" TERM="${TERM:-xterm-256color}" LANG="${LANG:-C.UTF-8}" \
  HOME="$work/home" ANTHROPIC_API_KEY="$key" ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$work/port")" \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
  "$OLDPWD/bin/claudewrap" run --claude "$OLDPWD/$claude" --rules "$rules" --exit-after-turn \
    --events "$work/events.jsonl" "${headless[@]}" -- "plan the project") || status=$?

# claudewrap writes its human lines only to a terminal: without one, say
# what Claude recorded from its events.
if ! [ -t 2 ]; then
  sed -n 's/.*"answers":{\([^}]*\)},"event":"verified".*/claudewrap: verified: Claude recorded \1/p' "$work/events.jsonl" >&2
fi
echo
if [ -t 1 ]; then
  echo "(Above: Claude's last frame. A 'claude --resume' hint on it names the demo's temporary HOME,"
  echo " which is gone now.)"
fi
if grep -q '"event":"verified"' "$work/events.jsonl" && [ "$status" = 0 ]; then
  echo "== demo done: Claude recorded exactly the answers examples/demo.yaml gives (exit $status)."
else
  echo "== demo failed: claudewrap exited $status; its events:" >&2
  cat "$work/events.jsonl" >&2
  exit 1
fi
