#!/usr/bin/env bash
# Installs pinned Claude Code versions from the npm registry into
# .cache/claude-code/<version>/, skipping those already there.
# Usage: scripts/install-claude.sh 2.1.332 [2.1.197 ...]
set -euo pipefail
cd "$(dirname "$0")/.."
for v in "$@"; do
  bin=".cache/claude-code/$v/node_modules/.bin/claude"
  if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$v"; then
    continue
  fi
  echo "installing Claude Code $v into .cache/claude-code/$v" >&2
  mkdir -p ".cache/claude-code/$v"
  npm install --prefix ".cache/claude-code/$v" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$v" >&2
  if ! "$bin" --version 2>/dev/null | grep -q "^$v"; then
    echo "install-claude: $bin does not report version $v" >&2
    exit 1
  fi
done
