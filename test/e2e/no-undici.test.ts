// Issue 36: the ollama, Gemini, Anthropic and OpenAI providers reach their first request without loading
// Node's undici (Headers/Response/fetch: ~15-25 ms of CPU with the HTTP/2 client and node:tls it
// brings), nor node:https/node:tls for an http:// URL. The built bin/beans runs `-p` against each
// scripted server with a preloaded probe that lists the built-in modules loaded when the first HTTP
// request starts. What makes it hold: llm/provider-fetch.ts (node:http answering with
// llm/fetch-response.ts's Response) and scripts/bundle.mjs pointing those SDKs' `Headers`,
// `Response` and `FormData` at llm/fetch-classes.ts (for OpenAI also the `Headers` its event-stream
// helpers look up on globalThis when the SDK loads). Error answers go through the same classes, so a
// 429 and a 401 are checked too.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../bench/providers.mjs';
import { anthropicErrorBody } from '../support/scripted-anthropic.ts';
import { geminiErrorBody } from '../support/scripted-gemini.ts';
import { openAiErrorBody } from '../support/scripted-openai.ts';
import type { ScriptFault, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const PROBE = path.resolve(import.meta.dirname, '../support/module-probe.mjs');
const WATCHED = ['internal/deps/undici/undici', 'tls', 'https', 'http2', 'internal/webstreams/readablestream'];
type Spec = {
  start: (options: { turns: { text: string }[]; faults?: ScriptFault[] }) => Promise<ScriptedServer>;
  env: (url: string) => Record<string, string>;
};
const errorBody: Record<string, (status: number, message: string) => unknown> = {
  ollama: (_status, message) => ({ error: message }),
  gemini: geminiErrorBody,
  anthropic: anthropicErrorBody,
  openai: (status, message) => openAiErrorBody(status, message),
};
const providers = PROVIDERS as Record<string, Spec>;

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe.each(['ollama', 'gemini', 'anthropic', 'openai'])('bin/beans -p on %s', (name) => {
  it('answers, and had not loaded undici, node:https, node:tls or web streams when its first request started', async () => {
    const spec = providers[name]!;
    const server = await spec.start({ turns: [{ text: 'Hello from the script.' }] });
    servers.push(server);
    const repo = makeTempRepo();
    const probeFile = path.join(repo.home, 'modules.jsonl');
    const run = await runBeans(['-p', 'hi'], {
      cwd: repo.dir,
      env: { ...repo.env, ...spec.env(server.url), MODULE_PROBE_FILE: probeFile, MODULE_PROBE_WATCH: WATCHED.join(','), NODE_OPTIONS: `--import=${PROBE}` },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Hello from the script.');
    const reports = readFileSync(probeFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { loaded: string[] });
    expect(reports.length).toBeGreaterThan(0);
    // Web streams load for the answer's stream, after the request: the Anthropic and OpenAI SDKs'
    // `instanceof ReadableStream` go through llm/fetch-classes.ts's LazyReadableStream, and Gemini's
    // unused stream base no longer reads ReadableStream.prototype when it loads (scripts/bundle.mjs).
    expect(reports[0]!.loaded).toEqual([]);
  }, 30_000);

  // The SDKs read error answers through Beans' Response and Headers (json(), text(), headers.get):
  // the retry and the message must be what they were with Node's classes.
  it('retries a 429 and reports a 401 with the server’s message, through the same classes', async () => {
    const spec = providers[name]!;
    const limited = await spec.start({
      turns: [{ text: 'After the wait.' }],
      faults: [{ status: 429, headers: { 'retry-after': '0' }, body: errorBody[name]!(429, 'slow down') }],
    });
    const refused = await spec.start({ turns: [{ text: 'never' }], faults: [{ status: 401, body: errorBody[name]!(401, 'bad key'), always: true }] });
    servers.push(limited, refused);
    const repo = makeTempRepo();
    const retried = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...spec.env(limited.url) } });
    expect([retried.code, retried.stdout.trim()]).toEqual([0, 'After the wait.']);
    expect(retried.stderr).toContain('HTTP 429; retrying');
    expect(limited.requests.filter((request) => request.kind === 'chat')).toHaveLength(2);
    const failed = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...spec.env(refused.url) } });
    expect(failed.code).toBe(3);
    expect(failed.stderr).toMatch(/\(HTTP 401\): bad key\./);
  }, 30_000);
});
