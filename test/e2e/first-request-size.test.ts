// The first request stays under 10 KB (issue 36): `beans -p hi` in a fresh repository, with the
// bundled plugins and every built-in tool declared, sends at most 10,240 bytes of HTTP body on each
// provider. The providers, servers and environment are bench/providers.mjs's, so this measures what
// `node bench/startup.mjs` reports as "first request body".
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../bench/providers.mjs';
import type { RecordedRequest, ScriptOptions, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const LIMIT = 10 * 1024;

// Every tool a default session declares up front: the built-ins, load_skill (bundled skills),
// task and handoff (bundled agents). None of them may be deferred to get under the limit.
const TOOLS = [
  'read_file',
  'write_file',
  'edit_file',
  'notebook_edit',
  'shell',
  'shell_output',
  'kill_shell',
  'glob',
  'grep',
  'list_directory',
  'todo_write',
  'web_fetch',
  'memory',
  'load_skill',
  'task',
  'handoff',
];

interface Provider {
  start(options: ScriptOptions): Promise<ScriptedServer>;
  env(url: string): NodeJS.ProcessEnv;
}

type Body = { tools?: { name?: string; function?: { name: string }; functionDeclarations?: { name: string }[] }[] };

/** The declared tool names, in each protocol's shape. */
function toolNames(body: Body): string[] {
  return (body.tools ?? []).flatMap((tool) => tool.functionDeclarations?.map((declaration) => declaration.name) ?? [tool.function?.name ?? tool.name ?? '']);
}

describe('the first request of `beans -p hi`', () => {
  it.each(Object.keys(PROVIDERS))('is under 10 KB on %s with every built-in tool declared', async (name) => {
    const provider = (PROVIDERS as Record<string, Provider>)[name]!;
    const server = await provider.start({ turns: [{ text: 'hello' }] });
    try {
      const repo = makeTempRepo();
      const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...provider.env(server.url) } });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const chat = server.requests.find((request: RecordedRequest) => request.kind === 'chat')!;
      expect(toolNames(chat.body as Body).sort()).toEqual([...TOOLS].sort());
      expect(chat.bytes, `${name}: the first request is ${chat.bytes} bytes`).toBeLessThanOrEqual(LIMIT);
    } finally {
      await server.close();
    }
  });
});
