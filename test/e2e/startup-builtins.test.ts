// Issue 36: `beans -p` reaches its first request without loading Node built-ins it does not need for
// it. Core takes them through packages/core/src/node-builtins.ts when the code needing them runs (a
// static import loads a built-in when the bundle loads; an ES module import of node:util also ran its
// lazy exports, worker_threads among them); the ids made before the request (session id, message
// uuids, llm/'s tool-call ids) come from random-ids.ts and the sessions folder's SHA-256 from
// @noble/hashes, so node:crypto waits for its first real use; core's file reads before the request go
// through async-fs.ts (node:fs callbacks), not node:fs/promises; commander requires
// node:child_process (with node:dgram) on its first spawn (scripts/bundle.mjs). The built bin/beans runs against each
// scripted server with a preloaded probe listing the watched built-ins loaded when the first HTTP
// request starts; the session it writes is checked for the formats the ids and the folder had with
// node:crypto.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../bench/providers.mjs';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const PROBE = path.resolve(import.meta.dirname, '../support/module-probe.mjs');
// Ids as process.moduleLoadList names them: node:util's lazy exports, node:worker_threads,
// node:perf_hooks, node:timers/promises (~0.4 ms; tools/shell.ts and two others wait with it),
// node:child_process with node:dgram (~1 ms), node:crypto (~5 ms), and node:fs/promises (~1 ms; core
// reads through async-fs.ts) except on Ollama, whose SDK imports `promises` from node:fs itself.
const WATCHED = [
  'internal/util/parse_args/parse_args',
  'internal/util/diff',
  'internal/util/trace_sigint',
  'worker_threads',
  'perf_hooks',
  'timers/promises',
  'child_process',
  'dgram',
  'crypto',
];
const watchedOn = (provider: string) => (provider === 'ollama' ? WATCHED : [...WATCHED, 'fs/promises']);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
type Spec = { start: (options: { turns: { text: string }[] }) => Promise<ScriptedServer>; env: (url: string) => Record<string, string> };
const providers = PROVIDERS as Record<string, Spec>;

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe.each(['ollama', 'gemini', 'anthropic', 'openai'])('bin/beans -p on %s', (name) => {
  it('had loaded none of the watched built-ins when its first request started, and kept the session formats', async () => {
    const spec = providers[name]!;
    const server = await spec.start({ turns: [{ text: 'Hello from the script.' }] });
    servers.push(server);
    const repo = makeTempRepo();
    const probeFile = path.join(repo.home, 'modules.jsonl');
    const env = {
      ...repo.env,
      ...spec.env(server.url),
      MODULE_PROBE_FILE: probeFile,
      MODULE_PROBE_WATCH: watchedOn(name).join(','),
      NODE_OPTIONS: `--import=${PROBE}`,
    };
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env });
    expect(run.stderr).toBe('');
    expect([run.code, run.stdout.trim()]).toEqual([0, 'Hello from the script.']);
    const reports = readFileSync(probeFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { loaded: string[] });
    expect(reports.length).toBeGreaterThan(0);
    expect(reports[0]!.loaded).toEqual([]);

    // The sessions folder is named as node:crypto's SHA-256 named it, so earlier sessions are found.
    const folder = path.join(
      repo.env.XDG_STATE_HOME!,
      'beans-agent',
      'sessions',
      `${repo.dir
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .replace(/^[-.]+|-+$/g, '')
        .slice(-48)
        .replace(/^[-.]+/, '')}-${createHash('sha256').update(repo.dir).digest('hex').slice(0, 8)}`,
    );
    const files = readdirSync(folder).filter((file) => file.endsWith('.jsonl'));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jsonl$/);
    const records = readFileSync(path.join(folder, files[0]!), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message?: Record<string, unknown> });
    const messages = records.flatMap((record) => (record.type === 'message' && record.message ? [record.message] : []));
    const user = messages.find((message) => message.role === 'user');
    const assistant = messages.find((message) => message.role === 'assistant');
    expect(user?.uuid).toMatch(UUID_V4);
    expect(assistant?.id).toMatch(/^msg_[0-9a-f]{32}$/);
  }, 30_000);
});
