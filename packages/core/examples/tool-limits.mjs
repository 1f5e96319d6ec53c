import { query } from '@beans/core';

// Three shell calls in one run, but only two are allowed: the third is answered with an error
// result, and the model carries on without it.
const run = query({
  prompt: 'Run the checks',
  options: {
    cwd: process.argv[2],
    provider: 'ollama',
    permissionMode: 'bypassPermissions',
    toolLimits: { shell: 2 },
  },
});

for await (const message of run) {
  if (message.type === 'user') {
    for (const block of message.message.content) if (block.type === 'tool_result') console.log(`${block.is_error ? 'error' : 'ok'}: ${String(block.content).split('\n')[0]}`);
  }
  if (message.type === 'result') console.log(`result: ${message.subtype}, ${message.result}`);
}
