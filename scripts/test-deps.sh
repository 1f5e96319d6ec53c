#!/usr/bin/env bash
# The programs the test suite runs besides Node (issue 34: a fresh machine is the only machine).
# Installs the missing ones with apt when it can (root, or sudo without a password); otherwise says
# which are missing: the tests that need tmux or the sandbox skip and say so, the others fail.
set -uo pipefail
declare -A package=(
  [git]=git [python3]=python3 [curl]=curl [ps]=procps [script]=bsdutils [tmux]=tmux
  [bwrap]=bubblewrap [socat]=socat [rg]=ripgrep [mount]=mount
)
missing=()
for tool in "${!package[@]}"; do command -v "$tool" >/dev/null 2>&1 || missing+=("${package[$tool]}"); done
# The DBOS workflow tests run a PostgreSQL server; Debian keeps initdb and pg_ctl off PATH, in
# /usr/lib/postgresql/<version>/bin (test/support/postgres.ts looks there). Without it they skip.
command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
# The web view's browser tests drive Debian's Chromium (/usr/bin/chromium) with playwright-core, which
# never downloads a browser of its own. Without it they skip.
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=; [ "$(id -u)" = 0 ] || sudo="sudo -n"
if command -v apt-get >/dev/null 2>&1 && ($sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1; then exit 0; fi
echo "test-deps: could not install ${missing[*]} (apt-get as root or passwordless sudo); tests that need them will skip or fail." >&2
