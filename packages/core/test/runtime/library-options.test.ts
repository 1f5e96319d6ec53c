import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, scriptedOllama } from '../../../../test/support/scratch.ts';
import type { ScriptOptions, ScriptedServer } from '../../../../test/support/script.ts';
import { createAgentSession, fileMemoryStore, query, UsageError, type SdkMessage, type SdkUserInput } from '../../src/index.js';

// The edges of the library's extension points (the README's examples run in library-extensions.test.ts).
async function setup(script: ScriptOptions): Promise<{ dir: string; env: NodeJS.ProcessEnv; server: ScriptedServer }> {
  const repo = makeTempRepo();
  const server = await scriptedOllama(script);
  return { dir: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, server };
}

async function collect(messages: AsyncIterable<SdkMessage>): Promise<SdkMessage[]> {
  const out: SdkMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

async function* prompts(...texts: string[]): AsyncGenerator<SdkUserInput> {
  for (const text of texts) yield { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' };
}

const toolResults = (messages: SdkMessage[]) =>
  messages.flatMap((message) => (message.type === 'user' && Array.isArray(message.message.content) ? message.message.content : [])) as {
    type: string;
    is_error?: boolean;
    content?: unknown;
  }[];

describe('toolLimits', () => {
  it('counts per run: the next user message may call the tool again; Claude names count too', async () => {
    const shell = (n: number) => ({ name: 'shell', args: { command: `echo ${n} >> ran.txt` } });
    // History: 1 assistant message per tool turn; run 1 = turns 0-1, run 2 = turns 2-3.
    const { dir, env } = await setup({
      turns: [{ toolCalls: [shell(1), shell(2)] }, { text: 'first done' }, { toolCalls: [shell(3), shell(4)] }, { text: 'second done' }],
    });
    const messages = await collect(
      query({ prompt: prompts('one', 'two'), options: { cwd: dir, env, permissionMode: 'bypassPermissions', toolLimits: { Bash: 1 } } }),
    );
    expect(readFileSync(path.join(dir, 'ran.txt'), 'utf8')).toBe('1\n3\n');
    expect(toolResults(messages).map((block) => block.is_error)).toEqual([false, true, false, true]);
    expect(JSON.stringify(toolResults(messages)[1])).toContain('Bash may be called at most 1 time per run');
  });

  it('a limit that is not a whole number refuses to build the session', async () => {
    const { dir, env } = await setup({ turns: [{ text: 'never' }] });
    await expect(createAgentSession({ cwd: dir, env, persistSession: false, toolLimits: { shell: 1.5 } })).rejects.toThrow(UsageError);
    await expect(createAgentSession({ cwd: dir, env, persistSession: false, toolLimits: { shell: -1 } })).rejects.toThrow('toolLimits.shell is -1');
  });
});

describe('guardrail functions', () => {
  it('a guardrail that throws stops the prompt (fail closed); the first tripped one in list order names the refusal', async () => {
    const { dir, env, server } = await setup({ turns: [{ text: 'never' }] });
    const seen: unknown[] = [];
    const messages = await collect(
      query({
        prompt: 'hello',
        options: {
          cwd: dir,
          env,
          context: { tenant: 't1' },
          inputGuardrails: [
            { name: 'passes', execute: ({ context }) => (seen.push(context), { tripwireTriggered: false }) },
            {
              name: 'broken',
              execute: async () => {
                throw new Error('classifier down');
              },
            },
            { name: 'also_trips', execute: async () => ({ tripwireTriggered: true, message: 'second' }) },
          ],
        },
      }),
    );
    const result = messages.at(-1) as { subtype: string; errors: string[] };
    expect(result.subtype).toBe('error_during_execution');
    expect(result.errors[0]).toBe('The prompt was blocked: The guardrail broken failed (classifier down), so the prompt was stopped. (guardrail: broken)');
    expect(seen).toEqual([{ tenant: 't1' }]);
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
  });
});

describe('handoff callbacks', () => {
  it('onHandoff that throws refuses the handoff: the model reads why, the agent and history stay', async () => {
    const { dir, env, server } = await setup({
      turns: [{ toolCalls: [{ name: 'handoff', args: { agent: 'billing', reason: 'invoice' } }] }, { text: 'I will answer myself.' }],
    });
    let filtered = false;
    const messages = await collect(
      query({
        prompt: 'invoice question',
        options: {
          cwd: dir,
          env,
          systemPrompt: 'You are triage.',
          agents: { billing: { description: 'Invoices', prompt: 'You are billing.' } },
          context: { closed: true },
          onHandoff: (_handoff, context) => {
            if (context.closed) throw new Error('billing is closed today');
          },
          handoffInputFilter: ({ history }) => ((filtered = true), history),
        },
      }),
    );
    expect(JSON.stringify(toolResults(messages)[0])).toContain('The handoff to billing was refused: billing is closed today');
    expect(filtered).toBe(false);
    const second = server.requests.filter((request) => request.kind === 'chat')[1]!.body as { messages: { role: string; content: string }[] };
    expect(second.messages[0]!.content).toContain('You are triage.');
    expect(second.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'I will answer myself.' });
  });
});

describe('memory stores', () => {
  it('fileMemoryStore is .beans/memory.md: add writes a list line once, list reads the facts back', async () => {
    const repo = makeTempRepo();
    const store = fileMemoryStore(repo.dir);
    expect(await store.list()).toEqual([]);
    expect(await store.add('Build with make')).toEqual({ added: true });
    expect(await store.add('Build with make')).toEqual({ added: false });
    expect(await store.add('Lint with eslint')).toEqual({ added: true });
    expect(await store.list()).toEqual(['Build with make', 'Lint with eslint']);
    expect(readFileSync(path.join(repo.dir, '.beans', 'memory.md'), 'utf8')).toContain('- Build with make\n- Lint with eslint\n');
  });

  it('a store whose list() fails leaves memory out with a warning; the file is not read instead', async () => {
    const { dir, env } = await setup({ turns: [{ text: 'ok' }] });
    await fileMemoryStore(dir).add('from the file');
    const agent = await createAgentSession({
      cwd: dir,
      env,
      persistSession: false,
      memory: {
        list: async () => {
          throw new Error('database is down');
        },
        add: async () => ({ added: false }),
      },
    });
    try {
      expect(agent.warnings).toContain('The memory store could not be read (database is down); this session starts without it.');
      expect(agent.session.systemPrompt).not.toContain('from the file');
    } finally {
      await agent.close();
    }
  });
});

describe('output guardrail functions', () => {
  it('also judge the last text of a run that maxTurns ended', async () => {
    const { dir, env } = await setup({ turns: [{ text: 'secret plan', toolCalls: [{ name: 'list_directory', args: { path: '.' } }] }, { text: 'never' }] });
    const messages = await collect(
      query({
        prompt: 'go',
        options: {
          cwd: dir,
          env,
          maxTurns: 1,
          outputGuardrails: [{ name: 'no_secrets', execute: async ({ agentOutput }) => ({ tripwireTriggered: agentOutput.includes('secret') }) }],
        },
      }),
    );
    const result = messages.at(-1) as { result?: string; errors?: string[] };
    expect(JSON.stringify(result)).not.toContain('secret plan');
    expect(result.errors?.join(' ')).toContain('(guardrail: no_secrets)');
  });
});
