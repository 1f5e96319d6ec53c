import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileGuardrails } from '../../src/guardrails/index.js';
import { gateFinalAnswer, gateUserPrompt } from '../../src/hooks/index.js';
import { hook, recorded, runnerFor, script, tempDir } from './helpers.js';

describe('gateUserPrompt', () => {
  it('a blocking input guardrail stops the prompt before any hook sees it, naming the rule', async () => {
    const cwd = tempDir();
    const record = path.join(cwd, 'rec.jsonl');
    const hooks = runnerFor([hook('UserPromptSubmit', `bash ${script('record-stdin.sh')}`)], cwd, { env: { ...process.env, HOOK_RECORD: record } });
    const rails = await compileGuardrails({
      rules: { input: [{ builtin: 'secrets', action: 'block', message: 'No keys in prompts.' }] },
      where: 'settings.json',
    });
    const gate = await gateUserPrompt('use AKIAIOSFODNN7EXAMPLE', rails, hooks);
    expect(gate).toEqual({ allowed: false, reason: 'No keys in prompts. (guardrail: builtin secrets)', userMessages: [] });
    expect(recorded(record)).toEqual([]);
  });

  it('hooks see the redacted prompt; their stdout becomes context; warnings go to the user', async () => {
    const cwd = tempDir();
    const rails = await compileGuardrails({
      rules: {
        input: [
          { builtin: 'email', action: 'redact' },
          { pattern: 'prod', action: 'warn', message: 'Production!' },
        ],
      },
      where: 'settings.json',
    });
    const gate = await gateUserPrompt(
      'mail bob@example.com about prod',
      rails,
      runnerFor([hook('UserPromptSubmit', `bash ${script('prompt-context.sh')}`)], cwd),
    );
    expect(gate).toEqual({
      allowed: true,
      prompt: 'mail [REDACTED:email] about prod',
      context: 'Ticket: BEANS-42 (prompt was: mail [REDACTED:email] about prod)',
      userMessages: ['Production!'],
    });
  });

  it('an exit-2 UserPromptSubmit hook blocks with its stderr', async () => {
    const gate = await gateUserPrompt('hi', await compileGuardrails(), runnerFor([hook('UserPromptSubmit', `bash ${script('exit2.sh')}`)], tempDir()));
    expect(gate).toMatchObject({ allowed: false, reason: 'Writes to generated/ are forbidden; edit src/ instead.' });
  });
});

describe('gateFinalAnswer', () => {
  it("block replaces the answer with the rule's message; redact rewrites it; warn passes it", async () => {
    const rails = await compileGuardrails({
      rules: {
        output: [
          { pattern: 'internal\\.corp', action: 'block', message: 'The answer named an internal host.' },
          { builtin: 'phone', action: 'redact' },
          { builtin: 'email', action: 'warn' },
        ],
      },
      where: 'settings.json',
    });
    expect(gateFinalAnswer('see wiki.internal.corp', rails)).toEqual({
      text: 'The answer named an internal host.',
      blocked: { rule: 'pattern /internal\\.corp/', message: 'The answer named an internal host.' },
      warnings: [],
    });
    expect(gateFinalAnswer('call +1 415 555 0100 or a@b.io', rails)).toEqual({
      text: 'call [REDACTED:phone] or a@b.io',
      warnings: ['The answer matched the guardrail builtin email.'],
    });
  });
});
