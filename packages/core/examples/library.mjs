import { query, registerProvider } from '@beans/core';

// A provider is one object: how to make a client, and whether it is configured.
registerProvider({
  id: 'shouty',
  label: 'Shouty (an example provider)',
  isConfigured: () => true,
  create: () => ({
    provider: 'shouty',
    resolveModel: async () => ({ model: 'shouty-1' }),
    listModels: async () => [{ name: 'shouty-1', provider: 'shouty' }],
    chat: async () => ({ stopReason: 'stop', text: 'HI', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } }),
    async *chatStream(request) {
      const asked = request.messages.at(-1);
      const answered = asked?.role === 'tool';
      if (!answered) {
        // First turn: ask to write a file.
        const call = { id: 'call_1', name: 'write_file', arguments: { path: 'shout.txt', content: 'HELLO\n' } };
        yield { type: 'tool_call', call };
        yield { type: 'done', stopReason: 'tool_use', text: '', toolCalls: [call], usage: { inputTokens: 10, outputTokens: 5 } };
        return;
      }
      const text = `WROTE IT: ${asked.content}`;
      yield { type: 'text_delta', text };
      yield { type: 'done', stopReason: 'stop', text, toolCalls: [], usage: { inputTokens: 20, outputTokens: 5 } };
    },
  }),
});

const run = query({
  prompt: 'Write shout.txt',
  options: {
    provider: 'shouty',
    cwd: process.argv[2] ?? process.cwd(),
    canUseTool: async (toolName, input) =>
      toolName === 'write_file' ? { behavior: 'allow', updatedInput: input } : { behavior: 'deny', message: 'Only writes are allowed.' },
  },
});

for await (const message of run) {
  if (message.type === 'assistant') {
    for (const block of message.message.content) if (block.type === 'text') console.log(`assistant: ${block.text}`);
  }
  if (message.type === 'result') console.log(`result: ${message.subtype}, ${message.num_turns} turns`);
}
