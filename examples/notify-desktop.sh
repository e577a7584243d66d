#!/bin/sh
# claudewrap run --notify examples/notify-desktop.sh …: a desktop
# notification (notify-send, or osascript on macOS) when a question waits
# for you. The form comes as JSON on stdin.
set -eu
form=$(cat)
title="Claude asks (session $(printf '%s' "$form" | jq -r .session))"
body="$(printf '%s' "$form" | jq -r '.questions[0].question')"
if command -v notify-send >/dev/null; then
  notify-send "$title" "$body"
else
  osascript -e "display notification \"$body\" with title \"$title\""
fi
