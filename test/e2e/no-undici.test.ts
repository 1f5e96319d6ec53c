// Issue 36: the ollama, Gemini and Anthropic providers reach their first request without loading
// Node's undici (Headers/Response/fetch: ~15-25 ms of CPU with the HTTP/2 client and node:tls it
// brings), nor node:https/node:tls for an http:// URL. The built bin/beans runs `-p` against each
// scripted server with a preloaded probe that lists the built-in modules loaded when the first HTTP
// request starts. What makes it hold: llm/provider-fetch.ts (node:http answering with
// llm/fetch-response.ts's Response) and scripts/bundle.mjs pointing those SDKs' `Headers`,
// `Response` and `FormData` at llm/fetch-classes.ts. The OpenAI SDK still loads undici when it loads
// (not asserted here; see README "Start-up").
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../bench/providers.mjs';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const PROBE = path.resolve(import.meta.dirname, '../support/module-probe.mjs');
type Spec = { start: (options: { turns: { text: string }[] }) => Promise<ScriptedServer>; env: (url: string) => Record<string, string> };
const providers = PROVIDERS as Record<string, Spec>;

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe.each(['ollama', 'gemini', 'anthropic'])('bin/beans -p on %s', (name) => {
  it('answers, and had not loaded undici, node:https or node:tls when its first request started', async () => {
    const spec = providers[name]!;
    const server = await spec.start({ turns: [{ text: 'Hello from the script.' }] });
    servers.push(server);
    const repo = makeTempRepo();
    const probeFile = path.join(repo.home, 'modules.jsonl');
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...spec.env(server.url), MODULE_PROBE_FILE: probeFile, NODE_OPTIONS: `--import=${PROBE}` } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Hello from the script.');
    const reports = readFileSync(probeFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { loaded: string[] });
    expect(reports.length).toBeGreaterThan(0);
    expect(reports[0]!.loaded).toEqual([]);
  }, 30_000);
});
