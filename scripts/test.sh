#!/usr/bin/env bash
# Sets up Beans (Node, pnpm, dependencies, build) and runs the whole check: lint, format and
# architecture first (after the build: type-aware lint reads packages/core's declarations), then the
# test suite, which runs even when a check failed so that one run reports everything; the exit status
# is non-zero when anything failed. With arguments (test files or vitest options) it runs only those
# tests, without the checks.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/test-deps.sh
source scripts/toolchain.sh
failed=0
if [ "$#" -eq 0 ]; then
  pnpm run --silent lint || failed=1
  pnpm run --silent format:check || failed=1
  pnpm run --silent arch || failed=1
fi
pnpm exec vitest run "$@" || failed=1
exit "$failed"
