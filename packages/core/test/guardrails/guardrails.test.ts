import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import {
  checkInput,
  checkOutput,
  compileGuardrails,
  guardrailToolHook,
  parseGuardrails,
  redactSecrets,
  type GuardrailsSettings,
} from '../../src/guardrails/index.js';
import type { AnyTool } from '../../src/tools/tool.js';

const AWS = 'AKIAIOSFODNN7EXAMPLE';
const GITHUB = `ghp_${'a1B2'.repeat(9)}`;
const GOOGLE = `AIza${'Sy0_-x'.repeat(5)}abcde`;
const settings = (rules: GuardrailsSettings) => ({ rules, where: 'settings.json' });

describe('guardrails on the prompt (input)', () => {
  it('block: the first matching block rule stops the prompt and is named', async () => {
    const rails = await compileGuardrails(
      settings({
        input: [
          { builtin: 'secrets', action: 'block', message: 'Do not paste keys; use the vault.' },
          { pattern: 'DROP TABLE', action: 'block' },
        ],
      }),
    );
    expect(checkInput(rails, `deploy with ${AWS}`).blocked).toEqual({ rule: 'builtin secrets', message: 'Do not paste keys; use the vault.' });
    expect(checkInput(rails, 'now DROP TABLE users').blocked).toEqual({
      rule: 'pattern /DROP TABLE/',
      message: 'The prompt was blocked by the guardrail pattern /DROP TABLE/.',
    });
    expect(checkInput(rails, 'list the files')).toEqual({ text: 'list the files', warnings: [], redacted: [] });
  });

  it('redact: emails and phone numbers are replaced before the model sees them', async () => {
    const rails = await compileGuardrails(
      settings({
        input: [
          { builtin: 'email', action: 'redact' },
          { builtin: 'phone', action: 'redact' },
        ],
      }),
    );
    const verdict = checkInput(rails, 'Mail jane.doe@example.co.uk or call +44 20 7946 0958 / (555) 123-4567 about v1.2.3 on 2026-11-23, budget 10.000.000.');
    expect(verdict.text).toBe('Mail [REDACTED:email] or call [REDACTED:phone] / [REDACTED:phone] about v1.2.3 on 2026-11-23, budget 10.000.000.');
    expect(verdict.redacted).toEqual(['builtin email', 'builtin phone']);
    expect(verdict.blocked).toBeUndefined();
  });

  it('warn: the run goes on with a message for the user', async () => {
    const rails = await compileGuardrails(settings({ input: [{ pattern: 'prod(uction)?', action: 'warn', message: 'This touches production.' }] }));
    expect(checkInput(rails, 'restart production')).toEqual({ text: 'restart production', warnings: ['This touches production.'], redacted: [] });
  });
});

describe('guardrails on the answer (output)', () => {
  it('block, redact and warn each act on the final answer; settings and frontmatter rules add up', async () => {
    const agent = parseGuardrails(
      {
        output: [
          { builtin: 'email', action: 'warn' },
          { pattern: 'rm -rf /', action: 'block', message: 'Refusing to suggest that.' },
        ],
      },
      'agents/ops.md',
    );
    const rails = await compileGuardrails(settings({ output: [{ pattern: 'ACME-\\d+', action: 'redact', name: 'ticket ids' }] }), {
      rules: agent,
      where: 'agents/ops.md',
    });
    const redacted = checkOutput(rails, 'Fixed ACME-123 and ACME-7; ping ops@example.com');
    expect(redacted.text).toBe('Fixed [REDACTED:ticket ids] and [REDACTED:ticket ids]; ping ops@example.com');
    expect(redacted.warnings).toEqual(['The answer matched the guardrail builtin email.']);
    expect(checkOutput(rails, 'just run rm -rf / and retry').blocked).toEqual({ rule: 'pattern /rm -rf //', message: 'Refusing to suggest that.' });
  });

  it('frontmatter rules are validated like settings', () => {
    expect(() => parseGuardrails({ input: [{ pattern: 'x', action: 'delete' }] }, 'agents/ops.md')).toThrow(
      'Invalid guardrails in agents/ops.md: "guardrails.input[0].action" must be "block", "redact" or "warn"',
    );
  });

  it('patterns are RE2 syntax: lookaround, a backreference or a broken pattern is a config error naming the rule', async () => {
    const rules = (pattern: string, name?: string) => ({
      rules: {
        output: [
          { pattern: 'ok', action: 'warn' as const },
          { pattern, action: 'block' as const, ...(name ? { name } : {}) },
        ],
      },
      where: 'agents/ops.md',
    });
    const rewrite = 'Guardrail patterns run on RE2, which has no lookahead, lookbehind or backreferences; rewrite the pattern without them.';
    await expect(compileGuardrails(rules('(?<!re)fund', 'refunds'))).rejects.toThrow(
      `The guardrail pattern /(?<!re)fund/ ("refunds", guardrails.output[1] in agents/ops.md) is not valid RE2 syntax: invalid named capture: \`(?<!re)fund\`. ${rewrite}`,
    );
    await expect(compileGuardrails(rules('(ab)\\1'))).rejects.toThrow(
      'The guardrail pattern /(ab)\\1/ (guardrails.output[1] in agents/ops.md) is not valid RE2 syntax: invalid escape sequence: `\\1`.',
    );
    await expect(compileGuardrails(rules('x(?=y)'))).rejects.toThrow(ConfigError);
    await expect(compileGuardrails(rules('[unclosed'))).rejects.toThrow('is not valid RE2 syntax: missing closing ]');
    // RE2's own syntax, which JavaScript lacks: an inline flag.
    const rails = await compileGuardrails(settings({ input: [{ pattern: '(?i)drop table', action: 'block' }] }));
    expect(checkInput(rails, 'DROP TABLE users').blocked?.rule).toBe('pattern /(?i)drop table/');
  });
});

describe('secrets in tool results', () => {
  it('redactSecrets replaces vendor keys, tokens, private keys and secret assignments, and leaves code alone', () => {
    const text = [
      `aws_access_key_id = ${AWS}`,
      `GITHUB_TOKEN=${GITHUB}`,
      `key: ${GOOGLE}`,
      'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345',
      'password: "hunter2hunter2"',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
      'const tokenCount = countTokens(text);',
    ].join('\n');
    const { text: out, count } = redactSecrets(text);
    expect(out).toBe(
      [
        'aws_access_key_id = [REDACTED:secret]',
        'GITHUB_TOKEN=[REDACTED:secret]',
        'key: [REDACTED:secret]',
        'Authorization: Bearer [REDACTED:secret]',
        'password: "[REDACTED:secret]"',
        '[REDACTED:secret]',
        'const tokenCount = countTokens(text);',
      ].join('\n'),
    );
    expect(count).toBe(6);
  });

  it('with a secrets rule, a tool result is redacted by the after-hook before the model reads it', async () => {
    expect(guardrailToolHook(await compileGuardrails(settings({ output: [{ builtin: 'email', action: 'redact' }] })))).toBeUndefined();
    const hook = guardrailToolHook(await compileGuardrails(settings({ output: [{ builtin: 'secrets', action: 'warn' }] })))!;
    const context = { call: { id: 'c', name: 'read_file', arguments: {} }, tool: {} as AnyTool, input: {} };
    const result = await hook({ ...context, result: { content: `1: OPENAI_API_KEY=sk-proj-${'x'.repeat(30)}\n2: debug=true` } }, new AbortController().signal);
    expect(result?.content).toBe('1: OPENAI_API_KEY=[REDACTED:secret]\n2: debug=true');
    const parts = await hook(
      {
        ...context,
        result: {
          content: [
            { type: 'text', text: GITHUB },
            { type: 'image', mimeType: 'image/png', data: 'AAAA' },
          ],
        },
      },
      new AbortController().signal,
    );
    expect(parts?.content).toEqual([
      { type: 'text', text: '[REDACTED:secret]' },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
    ]);
    expect(await hook({ ...context, result: { content: 'nothing here' } }, new AbortController().signal)).toBeUndefined();
  });
});
