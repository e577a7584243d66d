#!/usr/bin/env bash
# make try: your own rules file against a form of your own, on the real
# Claude Code, offline: a fake Messages API (bin/fakeapi) plays the model and
# has Claude ask the form; claudewrap answers it from your rules and checks
# what Claude recorded. At a terminal, a question your rules leave open is
# yours in Claude's own menu; without one the run is headless.
#
#   RULES     your rules file (required)
#   FORM      the form, as a hook's tool_input {"questions": [...]} (what
#             `claudewrap rules test --form` takes); default: the demo's
#             three questions, testdata/forms/three.json
#   SCENARIO  instead of FORM, a fake API scenario of your own (see
#             testdata/scenarios), with PROMPT the text its first rule waits for
#   RUNFLAGS  more `claudewrap run` flags, e.g. --answer-via hook
#
# Needs `make build` and the Claude Code version CLAUDE_VERSION under
# .cache/claude-code/ (make try does both).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${CLAUDE_VERSION:-2.1.332}
claude="$PWD/.cache/claude-code/$version/node_modules/.bin/claude"
[ -x "$claude" ] || { echo "try: $claude is missing: run make claude" >&2; exit 1; }
[ -n "${RULES:-}" ] || { echo "try: say which rules file: make try RULES=my.yaml [FORM=form.json]" >&2; exit 2; }
[ -f "$RULES" ] || { echo "try: no rules file $RULES" >&2; exit 2; }
rules=$(cd "$(dirname "$RULES")" && pwd)/$(basename "$RULES")
form=${FORM:-testdata/forms/three.json}
prompt="try the rules"

. scripts/offline.sh
offline_start try
if [ -n "${SCENARIO:-}" ]; then
  [ -n "${PROMPT:-}" ] || { echo "try: SCENARIO needs PROMPT, the text its first rule waits for (text_contains)" >&2; exit 2; }
  scenario=$SCENARIO
  prompt=$PROMPT
else
  [ -f "$form" ] || { echo "try: no form $form" >&2; exit 2; }
  if grep -q '"tool_input"' "$form"; then
    echo "try: $form is a whole hook payload: give its tool_input, {\"questions\": [...]}" >&2
    exit 2
  fi
  # What the rules say of the form, before Claude asks it (exit 1 is a
  # question they leave open: still worth running).
  echo "== what $RULES answers on $form (claudewrap rules test):"
  bin/claudewrap rules test "$rules" --form "$form" || [ $? = 1 ]
  # The fake API's scenario: Claude asks the form when given the prompt.
  # The form's JSON is a YAML flow mapping, indented under input.
  scenario="$work/scenario.yaml"
  {
    printf 'name: try\nrules:\n  - name: ask\n    when:\n      text_contains: %s\n' "$prompt"
    printf '    reply:\n      - type: tool_use\n        id: toolu_01try\n        name: AskUserQuestion\n        input:\n'
    sed 's/^/          /' "$form"
    printf '\n  - name: answered\n    when:\n      tool_result_for: toolu_01try\n    reply:\n      - type: text\n        text: Thanks, noted.\n'
  } >"$scenario"
fi

offline_api "$scenario"

headless=()
[ -t 0 ] || headless=(--headless)
# RUNFLAGS is split into words on purpose: several flags.
# shellcheck disable=SC2206
flags=(${RUNFLAGS:-})
echo "== the real Claude Code $version, offline, asks it; claudewrap answers from $RULES"
offline_run run --claude "$claude" --rules "$rules" --exit-after-turn --events "$work/events.jsonl" \
  "${headless[@]}" "${flags[@]}" -- "$prompt"
echo "== try done: claudewrap exited $status"
exit "$status"
