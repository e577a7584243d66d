# Sourced by demo.sh and try.sh: the real Claude Code, offline, in a
# temporary folder with a fake Messages API and an isolated HOME.
#
#   offline_start NAME     makes $work (removed on exit) with a HOME seeded
#                          past Claude Code's first-run dialogs
#   offline_api SCENARIO   starts bin/fakeapi on SCENARIO
#   offline_run ARGS...    runs bin/claudewrap ARGS in $work/project with
#                          that environment; sets $status

offline_start() {
  name=$1
  work=$(mktemp -d "${TMPDIR:-/tmp}/claudewrap-$name.XXXXXX")
  api_pid=
  trap offline_cleanup EXIT
  mkdir -p "$work/home" "$work/project"
  key=sk-ant-api03-claudewrap-demo-key-0123456789abcdef
  cat >"$work/home/.claude.json" <<JSON
{"hasCompletedOnboarding": true, "fullscreenUpsellSeenCount": 99, "hasSeenAutoDefaultNotice": true,
 "customApiKeyResponses": {"approved": ["${key: -20}"], "rejected": []},
 "projects": {"$work/project": {"hasTrustDialogAccepted": true}}}
JSON
}

offline_api() {
  local scenario=$1
  bin/fakeapi --scenario "$scenario" --port-file "$work/port" >"$work/api.out" 2>"$work/api.log" &
  api_pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  [ -s "$work/port" ] || { echo "$name: the fake API did not start:" >&2; cat "$work/api.log" >&2; exit 1; }
}

offline_cleanup() {
  [ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null || true
  rm -rf "$work"
}

offline_run() {
  local top=$PWD
  status=0
  (cd "$work/project" && env -i PATH="$PATH" TERM="${TERM:-xterm-256color}" LANG="${LANG:-C.UTF-8}" \
    HOME="$work/home" ANTHROPIC_API_KEY="$key" ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$work/port")" \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
    "$top/bin/claudewrap" "$@") || status=$?
}
