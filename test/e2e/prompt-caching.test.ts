// Issue 32 and issue 37 item 4: a long session pays for its history once (prompt caching), and the
// result's usage is what the server billed, token for token.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans } from './harness.ts';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { RecordedRequest, ScriptOptions, ScriptedServer } from '../support/script.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** 30 files of about 3 KB, and a model that reads one a turn, then answers. */
function readingSession(files = 30) {
  const contents: Record<string, string> = {};
  for (let i = 1; i <= files; i++)
    contents[`src/file${i}.ts`] = Array.from(
      { length: 60 },
      (_, line) => `export const value${i}_${line} = ${i * 1000 + line}; // line ${line} of file ${i}`,
    ).join('\n');
  const turns: ScriptOptions['turns'] = (_request, n) =>
    n < files ? { toolCalls: [{ name: 'read_file', args: { path: `src/file${n + 1}.ts` } }] } : { text: `Read ${files} files.` };
  return { contents, turns };
}

const chats = (server: ScriptedServer): RecordedRequest[] => server.requests.filter((r) => r.kind === 'chat');
const sum = (requests: RecordedRequest[], field: 'input' | 'cacheRead' | 'cacheWrite') => requests.reduce((total, r) => total + (r.bill?.[field] ?? 0), 0);

describe('prompt caching on Anthropic', () => {
  it('a 30-turn session of file reads is billed at most 0.2 of the no-cache figure, and usage matches the bill', async () => {
    const { contents, turns } = readingSession();
    const repo = makeTempRepo(contents);
    const server = await startScriptedAnthropic({ turns, promptCache: true });
    servers.push(server);
    const run = await runBeans(
      ['-p', 'read every file under src, one at a time', '--provider', 'anthropic', '-m', 'claude-sonnet-5-5', '-o', 'json', '--max-turns', '40'],
      {
        cwd: repo.dir,
        env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      usage: Record<string, number>;
      total_cost_usd: number;
      num_turns: number;
      modelUsage: Record<string, Record<string, number>>;
    };
    const requests = chats(server);
    expect(requests).toHaveLength(31);
    expect(result.num_turns).toBe(31);

    const input = sum(requests, 'input');
    const read = sum(requests, 'cacheRead');
    const write = sum(requests, 'cacheWrite');
    // What the server billed, token for token, in the result's usage and in modelUsage alike.
    expect(result.usage).toMatchObject({ input_tokens: input, cache_read_input_tokens: read, cache_creation_input_tokens: write });
    expect(result.modelUsage['claude-sonnet-5-5']).toMatchObject({ inputTokens: input, cacheReadInputTokens: read, cacheCreationInputTokens: write });

    // Input-token equivalents as Anthropic bills them (writes 1.25x, reads 0.1x) against the same
    // prompts without caching.
    const noCache = input + read + write;
    const billed = input + 1.25 * write + 0.1 * read;
    expect(billed / noCache).toBeLessThanOrEqual(0.2);
    // Every request after the first reads what the one before it wrote.
    for (const request of requests.slice(1)) expect(request.bill!.cacheRead).toBeGreaterThan(0);

    // claude-sonnet-5-5 as Beans' price table lists it: $2 input, $2.50 cache write, $0.10 cache
    // read, $10 output (per million).
    const output = result.usage.output_tokens!;
    expect(result.total_cost_usd).toBeCloseTo((input * 2 + write * 2.5 + read * 0.1 + output * 10) / 1e6, 8);
  }, 60_000);

  it('stream-json: the result sums cache reads and writes over the run, and each answer carries its own', async () => {
    const { contents, turns } = readingSession(4);
    const repo = makeTempRepo(contents);
    const server = await startScriptedAnthropic({ turns, promptCache: true });
    servers.push(server);
    const run = await runBeans(['-p', 'read the files', '--provider', 'anthropic', '-m', 'claude-sonnet-5-5', '-o', 'stream-json', '--verbose'], {
      cwd: repo.dir,
      env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = parseJsonLines(run.stdout);
    const result = lines.at(-1) as { type: string; usage: Record<string, number> };
    expect(result.type).toBe('result');
    const requests = chats(server);
    expect(sum(requests, 'cacheRead')).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({
      input_tokens: sum(requests, 'input'),
      cache_read_input_tokens: sum(requests, 'cacheRead'),
      cache_creation_input_tokens: sum(requests, 'cacheWrite'),
    });
    const answers = lines.filter((line) => line.type === 'assistant') as { message: { usage: Record<string, number> } }[];
    expect(answers.map((answer) => answer.message.usage.cache_read_input_tokens)).toEqual(requests.map((r) => r.bill!.cacheRead));
  }, 30_000);
});

describe('prompt caching on OpenAI', () => {
  it('sends the session id as prompt_cache_key when the setting is on, and counts cached tokens', async () => {
    const { contents, turns } = readingSession(6);
    const repo = makeTempRepo(contents);
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    // The user's own settings (a repository's settings are an allow-list until it is trusted).
    writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify({ openai: { promptCacheKey: true } }));
    const server = await startScriptedOpenAi({ turns, promptCache: true });
    servers.push(server);
    const run = await runBeans(['-p', 'read the files', '--provider', 'openai', '-m', 'gpt-5-mini', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` },
    });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { session_id: string; usage: Record<string, number> };
    const requests = chats(server);
    for (const request of requests) expect((request.body as { prompt_cache_key?: string }).prompt_cache_key).toBe(result.session_id);
    expect(sum(requests, 'cacheRead')).toBeGreaterThan(0);
    expect(result.usage).toMatchObject({
      input_tokens: sum(requests, 'input'),
      cache_read_input_tokens: sum(requests, 'cacheRead'),
      cache_creation_input_tokens: 0,
    });
  }, 30_000);

  it('does not send prompt_cache_key to a compatible server unless configured', async () => {
    const { contents, turns } = readingSession(1);
    const repo = makeTempRepo(contents);
    const server = await startScriptedOpenAi({ turns });
    servers.push(server);
    const run = await runBeans(['-p', 'read it', '--provider', 'openai', '-m', 'gpt-5-mini', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` },
    });
    expect(run.code, run.stderr).toBe(0);
    for (const request of chats(server)) expect(request.body).not.toHaveProperty('prompt_cache_key');
  }, 30_000);
});
