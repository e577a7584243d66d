#!/usr/bin/env bash
# make demo: the real Claude Code, offline, asks a three-question form
# (single-select, multi-select, typed answer); claudewrap answers it from
# examples/demo.yaml in this terminal, checks what Claude recorded, and exits
# when Claude's turn ends. Needs `make build claude` first (make demo does it).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${CLAUDE_VERSION:-2.1.330}
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
status=0
(cd "$work/project" && env -i PATH="$PATH" TERM="${TERM:-xterm-256color}" LANG="${LANG:-C.UTF-8}" \
  HOME="$work/home" ANTHROPIC_API_KEY="$key" ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$work/port")" \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
  "$OLDPWD/bin/claudewrap" run --claude "$OLDPWD/$claude" --rules "$rules" --exit-after-turn \
    --events "$work/events.jsonl" "${headless[@]}" -- "plan the project") || status=$?

echo
echo "== claudewrap exited with status $status; what it checked:"
grep -E '"event":"(decision|unmatched|verified|mismatch|error|handed_over)"' "$work/events.jsonl" || true
if grep -q '"event":"verified"' "$work/events.jsonl" && [ "$status" = 0 ]; then
  echo "== verified: Claude recorded exactly the answers the rules meant."
else
  echo "== not verified (see the events above)." >&2
  exit 1
fi
