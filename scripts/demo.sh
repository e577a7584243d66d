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

. scripts/offline.sh
offline_start demo
offline_api testdata/scenarios/three.yaml

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
offline_run run --claude "$PWD/$claude" --rules "$rules" --exit-after-turn \
  --events "$work/events.jsonl" "${headless[@]}" -- "plan the project"

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
