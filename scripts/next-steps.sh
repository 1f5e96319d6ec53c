#!/usr/bin/env bash
# The last words of setup.sh: which model Beans will talk to, or how to give it one, then what to run.
# Never fails (setup has succeeded by the time it runs).
cd "$(dirname "$0")/.."
for key in GEMINI_API_KEY GOOGLE_API_KEY ANTHROPIC_API_KEY OPENAI_API_KEY; do
  if [ -n "${!key:-}" ]; then
    echo "Beans is ready ($key is set). Next: bin/beans in a repository to chat, or bin/beans -p \"explain src/\"."
    exit 0
  fi
done
host=${OLLAMA_HOST:-http://127.0.0.1:11434}
[[ $host == http://* || $host == https://* ]] || host="http://$host"
node=$(command -v node || true)
if [ -n "$node" ] && "$node" -e 'fetch(process.argv[1] + "/api/tags", { signal: AbortSignal.timeout(2000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$host" 2>/dev/null; then
  echo "Beans is ready (Ollama answers at $host). Next: bin/beans in a repository to chat."
  exit 0
fi
cat <<TEXT
Beans is built. Give it a model, then run bin/beans in a repository:
  export ANTHROPIC_API_KEY=...    (or GEMINI_API_KEY, OPENAI_API_KEY), then bin/beans
  or start Ollama (ollama serve; ollama pull qwen3), then bin/beans
  or bin/beans models pull        (a local model, about 2 GB), then bin/beans
TEXT
