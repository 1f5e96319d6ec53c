#!/usr/bin/env bash
# Installs dependencies and builds Beans. Provisions Node >= 22 and pnpm when the machine lacks them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh
# --sandbox runs shell commands in bubblewrap, with socat bridging its network proxy and ripgrep
# finding the files it must keep read-only. Installed when missing and apt can do it.
missing=$(for tool in bwrap socat rg; do command -v "$tool" >/dev/null 2>&1 || echo "$tool"; done | tr '\n' ' ')
if [ -n "$missing" ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && ($sudo apt-get update -qq && $sudo apt-get install -y -qq bubblewrap socat ripgrep) >/dev/null 2>&1; then :
  else echo "setup: could not install bubblewrap, socat and ripgrep (missing: $missing); --sandbox will not work until they are installed." >&2
  fi
fi
pnpm install --frozen-lockfile --reporter=silent 2>/dev/null || pnpm install --reporter=silent
pnpm run --silent build
# Starts this user's caches (~/.cache/beans-agent/compile-cache: Node's, and the chunks' code cache,
# which the next runs complete) with what every start loads, so the first real run starts warm.
# Never fails setup.
./bin/beans --help >/dev/null 2>&1 || true
./scripts/next-steps.sh
