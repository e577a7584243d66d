#!/usr/bin/env bash
# make demo: runs claudewrap on the real Claude Code against the fake API.
set -euo pipefail
echo "make demo arrives with the end-to-end harness (issue 3): it will answer a real form." >&2
exit 1
