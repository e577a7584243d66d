#!/bin/sh
# An exec answer for claudewrap (see examples/exec.yaml): the question as
# JSON on stdin, one answer as JSON on stdout. It asks an LLM to pick one of
# the offered labels, and checks that it did: anything else is an error
# (exit 1), which leaves the question unmatched rather than guessed.
#
# $LLM is the command that reads a prompt on stdin and prints the reply
# (default: the Claude Code CLI, `claude -p`). $1 is guidance for it.
set -eu
question=$(cat)
labels=$(printf '%s' "$question" | jq -r '.options[].label')
reply=$(printf 'Answer with exactly one of these labels and nothing else.\n%s\n\nQuestion: %s\nOptions:\n%s\n' \
  "${1:-}" "$(printf '%s' "$question" | jq -r .question)" "$labels" | ${LLM:-claude -p})
choice=$(printf '%s' "$reply" | tr -d '\r' | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | head -n 1)
if printf '%s\n' "$labels" | grep -Fxq -- "$choice"; then
  jq -cn --arg l "$choice" '{select: $l}'
else
  echo "ask-llm: the reply was not one of the labels: $reply" >&2
  exit 1
fi
