#!/usr/bin/env bash
# Installs dependencies and builds Beans. Provisions Node >= 22 and pnpm when the machine lacks them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh
pnpm install --frozen-lockfile --reporter=silent 2>/dev/null || pnpm install --reporter=silent
pnpm run --silent build
