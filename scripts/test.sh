#!/usr/bin/env bash
# Sets up Beans (Node, pnpm, dependencies, build) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/test-deps.sh
source scripts/toolchain.sh
exec pnpm exec vitest run "$@"
