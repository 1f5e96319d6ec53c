import { query } from '@beans/core';

const run = query({
  prompt: 'My invoice is wrong',
  options: {
    cwd: process.argv[2],
    provider: 'ollama',
    permissionMode: 'bypassPermissions',
    context: { customerId: 'c-42' },
    // An agent the conversation may be handed to (plugin agents may be too).
    agents: { billing: { description: 'Invoices and payments', prompt: 'You are the billing agent.' } },
    // Told before the conversation moves; throwing would refuse the handoff (the model reads why).
    onHandoff: async (handoff, context) => console.log(`handoff: ${handoff.from} -> ${handoff.to} (${handoff.reason}) for ${context.customerId}`),
    // The billing agent reads the user's messages and the handoff call, not what the first agent
    // looked up on the way.
    handoffInputFilter: ({ history }) => history.filter((message) => message.role === 'user' || message === history.at(-1)),
  },
});

for await (const message of run) {
  if (message.type === 'result') console.log(`result: ${message.subtype}, ${message.result}`);
}
