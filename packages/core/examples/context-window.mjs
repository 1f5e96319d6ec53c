import { convertToLlm, query } from '@beans/core';

const run = query({
  prompt: 'Read big.txt and summarise it',
  options: {
    cwd: process.argv[2],
    provider: 'ollama',
    permissionMode: 'bypassPermissions',
    // What the model reads this time, after Beans' own compaction: here the first message (the
    // task) and the newest four. The conversation itself keeps every message.
    transformContext: (messages) => (messages.length > 5 ? [messages[0], ...messages.slice(-4)] : [...messages]),
    // Beans' own conversion, then every tool result cut to 200 characters for the provider.
    convertToLlm: (messages) =>
      convertToLlm(messages).map((message) =>
        message.role === 'tool' && typeof message.content === 'string' ? { ...message, content: message.content.slice(0, 200) } : message,
      ),
  },
});

for await (const message of run) {
  if (message.type === 'result') console.log(`result: ${message.subtype}, ${message.result}`);
}
