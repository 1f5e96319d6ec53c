import { describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/schema.js';
import { describeIssues, validateSettings } from '../../src/config/validate.js';

const samples: Record<string, unknown>[] = [
  {},
  { provider: 'ollama', model: 'qwen3', ollama: { host: 'http://localhost:11434' }, unknownKey: 1 },
  { permissions: { mode: 'plan', allow: ['shell(git *)'], deny: ['write_file'] }, maxTurns: 12, debug: true },
  {
    hooks: { PreToolUse: [{ matcher: 'shell', hooks: [{ type: 'command', command: 'true' }] }] },
    guardrails: { input: [{ builtin: 'secrets', action: 'block' }] },
  },
  { providers: { lmstudio: { type: 'openai', baseUrl: 'http://localhost:1234/v1', models: ['a'] } }, mcpServers: { x: { command: 'y' } } },
  { maxTurns: 0, permissions: { mode: 'sometimes' }, ui: { theme: 'blue', markdown: 'yes' } },
  { providers: { openai: { type: 'openai', baseUrl: 'not a url' } }, compaction: { threshold: 2 }, hooks: { PreToolUse: [{ hooks: [{ type: 'prompt' }] }] } },
  { guardrails: { output: [{ pattern: 'x', builtin: 'email', action: 'warn' }] }, sandbox: { allowedHosts: 'example.com' }, model: '' },
];

describe('settings checked key by key', () => {
  it('give the data and the problems that checking the whole settings object gives', () => {
    for (const raw of samples) {
      const whole = settingsSchema().safeParse(raw);
      let result: unknown;
      try {
        result = validateSettings(raw, 'settings.json').settings;
      } catch (error) {
        result = (error as Error).message;
      }
      if (whole.success) expect(result).toEqual(whole.data);
      else {
        const problems = describeIssues(whole.error.issues, raw);
        expect(result).toContain(problems.slice(0, 5).join('; '));
      }
    }
  });
});
