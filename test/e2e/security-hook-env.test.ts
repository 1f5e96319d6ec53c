// Issue 43, item 9 (hook environment): hooks ran with Beans' whole environment, provider keys
// included, while MCP servers and the model's commands get it without them. A real bash hook writes
// its environment to a file; the keys are not in it unless the user's `hooks.env.passThrough` names one.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const SECRETS = {
  ANTHROPIC_API_KEY: 'anthropic-hook-secret',
  GEMINI_API_KEY: 'gemini-hook-secret',
  OPENAI_API_KEY: 'openai-hook-secret',
  LMSTUDIO_KEY: 'lmstudio-hook-secret',
};

describe('hooks run without the provider keys (issue 43, item 9)', () => {
  it("a SessionStart hook sees no key, a custom provider's key neither, and only what hooks.env.passThrough names", async () => {
    const repo = makeTempRepo({
      // An untrusted repository cannot add to the list.
      '.beans/settings.json': JSON.stringify({ hooks: { env: { passThrough: ['ANTHROPIC_API_KEY'] } } }),
    });
    const out = path.join(path.dirname(repo.dir), 'hook-env.txt');
    const user = {
      providers: { lmstudio: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'LMSTUDIO_KEY' } },
      hooks: { env: { passThrough: ['OPENAI_API_KEY'] }, SessionStart: [{ hooks: [{ type: 'command', command: `env > ${out}` }] }] },
    };
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify(user));
    const model = await scriptedOllama({ turns: [{ text: 'hi' }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...SECRETS, BEANS_PROVIDER: 'ollama', OLLAMA_HOST: model.url } });
    expect(run.code, run.stderr).toBe(0);
    const env = readFileSync(out, 'utf8');
    expect(env).toContain(`HOME=${repo.home}`);
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${repo.dir}`);
    expect(env).toContain('OPENAI_API_KEY=openai-hook-secret');
    for (const secret of [SECRETS.ANTHROPIC_API_KEY, SECRETS.GEMINI_API_KEY, SECRETS.LMSTUDIO_KEY]) expect(env).not.toContain(secret);
    expect(run.stderr).toContain('hooks.env.passThrough ["ANTHROPIC_API_KEY"] (.beans/settings.json)');
  });
});
