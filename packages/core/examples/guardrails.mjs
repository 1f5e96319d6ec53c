import { query } from '@beans/core';

// Guardrails as async functions (a classifier or a database could answer), beside the pattern
// rules of the settings. Both receive the run's context.
const inputGuardrails = [
  {
    name: 'refunds_need_a_person',
    execute: async ({ input, context }) => ({
      tripwireTriggered: /\brefund/i.test(input) && !context.mayRefund,
      message: 'Refunds are handled by a person; the request was passed on.',
    }),
  },
];
const outputGuardrails = [
  {
    name: 'no_internal_addresses',
    execute: async ({ agentOutput }) => ({ tripwireTriggered: agentOutput.includes('intranet.example') }),
  },
];

for (const prompt of ['I want a refund', 'Where are the docs?']) {
  const run = query({
    prompt,
    options: { cwd: process.argv[2], provider: 'ollama', context: { mayRefund: false }, inputGuardrails, outputGuardrails },
  });
  for await (const message of run) {
    if (message.type === 'result') console.log(`${prompt} -> ${message.subtype}: ${message.is_error ? message.errors.join('; ') : message.result}`);
  }
}
