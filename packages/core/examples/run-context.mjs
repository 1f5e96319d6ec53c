import { defineJsonSchemaTool, query } from '@beans/core';

// The program's own object for this run: who is asking, and where their data is.
const context = { user: { name: 'Ada', plan: 'pro' }, orders: new Map([['A-17', 'shipped on Monday']]) };

const run = query({
  prompt: 'Where is my order A-17?',
  options: {
    cwd: process.argv[2],
    provider: 'ollama',
    context,
    // Called once with the context: the agent's instructions (the environment, context files and
    // skills are still added).
    systemPrompt: ({ user }) => `You answer ${user.name}'s questions about their orders. Be brief.`,
    // Called once with the context: only customers on the pro plan get the order lookup.
    tools: ({ user, orders }) =>
      user.plan !== 'pro'
        ? []
        : [
            defineJsonSchemaTool({
              name: 'order_status',
              description: 'The status of one of the user\'s orders, by its id.',
              kind: 'read',
              inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
              execute: async ({ id }) => ({ content: orders.get(String(id)) ?? `No order ${id}.` }),
            }),
          ],
  },
});

for await (const message of run) {
  if (message.type === 'result') console.log(`result: ${message.subtype}, ${message.result}`);
}
