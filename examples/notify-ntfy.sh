#!/bin/sh
# claudewrap run --notify examples/notify-ntfy.sh …: a push to your phone
# through ntfy (https://ntfy.sh, or your own server in $NTFY_URL) when a
# question waits, with the command that answers it.
set -eu
form=$(cat)
session=$(printf '%s' "$form" | jq -r .session)
question=$(printf '%s' "$form" | jq -r '.questions[0].question')
options=$(printf '%s' "$form" | jq -r '[.questions[0].options[].label] | join(" / ")')
curl -fsS -H "Title: Claude asks" -d "$question
$options
claudewrap answer $session --select …" "${NTFY_URL:-https://ntfy.sh}/${NTFY_TOPIC:?set NTFY_TOPIC}" >/dev/null
