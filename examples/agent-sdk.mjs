// Runs a Claude Agent SDK program on Beans: any model Beans speaks to (Gemini, Claude, GPT,
// OpenAI-compatible servers, local Ollama) instead of Claude Code.
import { fileURLToPath } from 'node:url';
import { query } from '@anthropic-ai/claude-agent-sdk';

const beans = fileURLToPath(new URL('../bin/beans', import.meta.url));

for await (const message of query({
  prompt: process.argv[2] ?? 'List the files in this folder and say what the project is.',
  options: {
    pathToClaudeCodeExecutable: beans,
    cwd: process.cwd(),
    // Asked in Claude Code's vocabulary: Write with file_path, Bash with command, ...
    canUseTool: async (toolName, input) =>
      toolName === 'Bash' ? { behavior: 'deny', message: 'This program runs no commands.' } : { behavior: 'allow', updatedInput: input },
  },
})) {
  if (message.type === 'system' && message.subtype === 'init') console.log(`model: ${message.model}`);
  if (message.type === 'assistant') {
    for (const block of message.message.content) if (block.type === 'text') console.log(block.text);
  }
  if (message.type === 'result') console.log(`(${message.subtype}, ${message.num_turns} turns, $${message.total_cost_usd})`);
}
