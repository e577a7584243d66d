#!/bin/sh
# claudewrap run --notify examples/notify-desktop.sh …: a desktop
# notification (notify-send, or osascript on macOS) when a question waits
# for you. The form comes as JSON on stdin; jq reads it.
set -eu
form=$(cat)
title="Claude asks (session $(printf '%s' "$form" | jq -r .session))"
body="$(printf '%s' "$form" | jq -r '.questions[0].question')"
if command -v notify-send >/dev/null; then
  notify-send "$title" "$body"
else
  # The texts go as arguments, never inside the script: a question holding
  # a double quote would end AppleScript's string (and could run code).
  osascript -e 'on run argv' -e 'display notification (item 1 of argv) with title (item 2 of argv)' -e 'end run' "$body" "$title"
fi
