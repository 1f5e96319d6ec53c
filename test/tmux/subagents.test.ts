import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';

afterEach(closeOpen);

const FINDER = '---\nname: finder\ndescription: Finds where things are defined.\ntools: Bash, Read\n---\nFINDER: find what you are asked.\n';
const systemOf = (request: RecordedRequest) =>
  (request.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'system')?.content ?? '';

describe.skipIf(!hasTmux)('subagents in a real terminal (tmux)', () => {
  test("a running task shows its child's turn and current tool under it, collapsed to one line when done", async () => {
    const server = await startScriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('FINDER')) {
          return n === 0 ? { toolCalls: [{ name: 'shell', args: { command: 'sleep 2 && echo found' } }] } : { text: 'alpha is in a.ts' };
        }
        return n === 0
          ? { toolCalls: [{ name: 'task', args: { description: 'find alpha', prompt: 'where is alpha?', subagent_type: 'finder' } }] }
          : { text: 'The finder says: a.ts.' };
      },
    });
    const workspace = makeTempRepo({ 'plugins/search/agents/finder.md': FINDER });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, args: ['chat', '--yolo'] });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('where is alpha?');

    const running = await session.waitForText('└ finder · turn 1 · shell sleep 2 && echo found');
    expect(running).toMatch(/task finder: find alpha/);
    const done = await session.waitForText('The finder says: a.ts.');
    expect(done).toMatch(/✓ task finder: find alpha\n\s+└ finder · 2 turns · 1 tool call/);
    // The child's own tool line is not in the parent's transcript: only the collapsed summary.
    expect(done).not.toContain('✓ shell');
  }, 90_000);

  test("chat --continue shows a stored task with its child's summary under it", async () => {
    const server = await startScriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('FINDER')) return { text: 'alpha is in a.ts' };
        return n === 0
          ? { toolCalls: [{ name: 'task', args: { description: 'find alpha', prompt: 'where is alpha?', subagent_type: 'finder' } }] }
          : { text: 'Found it in a.ts.' };
      },
    });
    const workspace = makeTempRepo({ 'plugins/search/agents/finder.md': FINDER });
    const env = { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' };
    const first = TmuxSession.start({ workspace, env });
    open.push({ session: first, server, workspace });
    await first.waitForText('Ask anything');
    await first.submit('where is alpha?');
    await first.waitForText('Found it in a.ts.');
    await first.submit('/exit');
    await first.waitForText('[beans exited with 0]');

    const again = TmuxSession.start({ workspace, env, args: ['chat', '--continue'] });
    open.push({ session: again });
    const screen = await again.waitForText('Found it in a.ts.', 15_000);
    expect(screen).toMatch(/✓ task finder: find alpha\n\s+└ finder · 1 turn · 0 tool calls/);
  }, 90_000);

  test("a child's permission question is asked in chat, with its task marked as waiting", async () => {
    const server = await startScriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('FINDER'))
          return n === 0 ? { toolCalls: [{ name: 'shell', args: { command: 'echo from-the-child > child.txt' } }] } : { text: 'wrote it' };
        return n === 0
          ? { toolCalls: [{ name: 'task', args: { description: 'write a file', prompt: 'write child.txt', subagent_type: 'finder' } }] }
          : { text: 'The child is done.' };
      },
    });
    const workspace = makeTempRepo({ 'plugins/search/agents/finder.md': FINDER });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('have the finder write a file');
    const asking = await session.waitForText('Allow shell');
    expect(asking).toMatch(/task finder: write a file · awaiting approval/);
    await new Promise((resolve) => setTimeout(resolve, 400));
    session.type('y');
    await session.waitForText('The child is done.');
    expect(readFileSync(path.join(workspace.dir, 'child.txt'), 'utf8')).toBe('from-the-child\n');
  }, 90_000);

  test('/agent hands the conversation over by hand, /agents marks who holds it, and match: routing is announced', async () => {
    const server = await startScriptedOllama({ turns: (request): ScriptTurn => ({ text: `${systemOf(request).split(':')[0]} speaking` }) });
    const workspace = makeTempRepo({
      'plugins/desk/agents/billing.md': '---\nname: billing\ndescription: Invoices and refunds.\n---\nBILLING: money.\n',
      'plugins/desk/agents/support.md': '---\nname: support\ndescription: Accounts.\nmatch: [password reset]\n---\nSUPPORT: accounts.\n',
    });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');
    await session.submit('/agent billing');
    await session.waitForText('→ billing has the conversation now (chosen by the user).');
    await session.submit('/agents');
    const listed = await session.waitFor((screen) => /● desk:billing\s+Invoices and refunds\./.test(screen), 'the active agent marked');
    expect(listed).toMatch(/^\s+desk:support\s+Accounts\./m);
    await session.submit('hello');
    await session.waitForText('BILLING speaking');
    await session.submit('I need a password reset');
    const routed = await session.waitForText('SUPPORT speaking');
    // The note follows the message it routed.
    expect(routed).toMatch(/› I need a password reset\n\n→ support has the conversation now \(routed: the message matches "password reset"\)\./);
    await session.submit('/agent nobody');
    await session.waitForText('There is no agent "nobody" to hand off to.');
  }, 90_000);
});
