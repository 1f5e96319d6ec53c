// `--json-schema` (Claude Code's flag; the SDK's outputFormat passes it): the final answer must be
// JSON valid against the schema; the model is told what was wrong and retries (2 times at most).
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, count: { type: 'integer', minimum: 0 } },
  required: ['name', 'count'],
  additionalProperties: false,
};

function env(repo: { env: NodeJS.ProcessEnv }, url: string): NodeJS.ProcessEnv {
  return { ...repo.env, OLLAMA_HOST: url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
}

describe('structured output (--json-schema)', () => {
  it('retries an invalid answer with what was wrong, then delivers structured_output (json, schema file)', async () => {
    const repo = makeTempRepo({ 'schema.json': JSON.stringify(SCHEMA) });
    const server = await scriptedOllama({
      turns: [
        { text: '{"name": "beans", "count": "three"}', usage: { input: 100, output: 10 } },
        { text: '```json\n{"name": "beans", "count": 3}\n```', usage: { input: 150, output: 12 } },
      ],
    });
    const run = await runBeans(['-p', 'Count the beans', '--json-schema', 'schema.json', '-o', 'json'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, structured_output: { name: 'beans', count: 3 }, num_turns: 2 });
    // The text form is the model's answer as written.
    expect(result.result).toContain('"count": 3');
    // Both requests' tokens count.
    expect(result.usage).toMatchObject({ input_tokens: 250, output_tokens: 22 });
    // Model requests only: a conversation that may be near a small window looks the model's window up.
    const chats = server.requests.filter((request) => request.kind === 'chat');
    expect(chats).toHaveLength(2);
    // The first request carried the schema; the retry said what was wrong (the path of the bad value).
    expect(JSON.stringify(chats[0]!.body)).toContain('additionalProperties');
    const retry = JSON.stringify(chats[1]!.body);
    expect(retry).toContain('not valid against the required JSON Schema');
    expect(retry).toContain('/count');
  });

  it('ends with error_max_structured_output_retries and exit 1 when no answer validates (stream-json, inline schema)', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({
      turns: [{ text: 'Sure! Here you go.' }, { text: '{"name": 1}' }, { text: 'still not JSON' }, { text: 'never asked' }],
    });
    const run = await runBeans(['-p', 'Count the beans', '--json-schema', JSON.stringify(SCHEMA), '-o', 'stream-json'], {
      cwd: repo.dir,
      env: env(repo, server.url),
    });
    expect(run.code).toBe(1);
    const result = parseJsonLines(run.stdout).at(-1)!;
    expect(result).toMatchObject({ type: 'result', subtype: 'error_max_structured_output_retries', is_error: true, result: 'still not JSON' });
    expect(result.structured_output).toBeUndefined();
    expect(String((result.errors as string[])[0])).toMatch(/after 3 attempts: it is not JSON/);
    expect(run.stderr).toMatch(/did not match the JSON schema after 3 attempts/);
    // One first answer plus two retries, no more (model requests; the window look-up is not one).
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(3);
  });

  it('refuses a schema that is neither JSON nor a file (exit 2)', async () => {
    const repo = makeTempRepo();
    const run = await runBeans(['-p', 'hi', '--json-schema', 'missing.json'], {
      cwd: repo.dir,
      env: { ...repo.env, BEANS_PROVIDER: 'ollama', OLLAMA_HOST: 'http://127.0.0.1:9' },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing\.json is neither JSON nor a readable file/);
  });
});
