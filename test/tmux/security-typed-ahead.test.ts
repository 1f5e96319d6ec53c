import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptTurn } from '../support/script.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

// Issue 53 item 7: a permission question that appears while the user is typing a follow-up took the
// typed word as its answer once its short guard had passed ("then make sure..." ran `touch` with
// "always this session", from the `a` of "make"). Keys typed at speed never answer a question, however
// long the typing goes on; the question says it ignored them; a deliberate key after a pause does.

afterEach(closeOpen);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(turns: ScriptTurn[]) {
  const server = await startScriptedOllama({ turns });
  const workspace = makeTempRepo({ 'README.md': '# demo\n' });
  const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
  open.push({ session, server, workspace });
  await session.waitForText('Ask anything', 15_000);
  return { session, workspace };
}

/** A loaded machine can stretch the typing into pauses the person never made: such a run proves nothing. */
class Stalled extends Error {}

/**
 * Types `text` a key at a time, as a person at ~8 keys a second does, for as long as it lasts (a
 * newline is the Enter key, sent with the key before it). Throws Stalled when two keys went out
 * more than 450 ms apart: then a key may rightly have answered.
 */
async function typeAlong(session: TmuxSession, text: string, gapMs = 120): Promise<void> {
  const keys = [...text.replaceAll('\n', '\r')].reduce<string[]>(
    (out, key) => (key === '\r' && out.length ? [...out.slice(0, -1), `${out.at(-1)}\r`] : [...out, key]),
    [],
  );
  let last = Date.now();
  for (const key of keys) {
    session.type(key);
    const now = Date.now();
    if (now - last > 450) throw new Stalled(`keys went out ${now - last} ms apart`);
    last = now;
    await sleep(gapMs);
  }
}

/** Runs `scenario` until a run is not stalled by the machine's load (three tries). */
async function unstalled(scenario: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await scenario();
    } catch (error) {
      if (!(error instanceof Stalled) || attempt === 3) throw error;
      await closeOpen();
    }
  }
}

describe.skipIf(!hasTmux)('a question never takes keys typed for something else (tmux)', () => {
  test(
    'typing a follow-up through the question answers nothing, and the question says it ignored the keys',
    () =>
      unstalled(async () => {
        const { session, workspace } = await start([
          { text: ['Let me ', 'check ', 'first.'], chunkDelayMs: 500, toolCalls: [{ name: 'shell', args: { command: 'touch approved-by-typing' } }] },
          { text: 'done' },
        ]);
        await session.submit('look at the build');
        // The follow-up starts before the question and goes on well past its first second: its a, y and
        // Enter keys arrive while the question is open.
        await typeAlong(session, 'then make sure the tests pass, and yes, add a changelog entry anyway\n');
        const screen = session.visible();
        expect(screen).toContain('Allow shell');
        expect(screen).toMatch(/Ignored .*typed/);
        expect(existsSync(path.join(workspace.dir, 'approved-by-typing'))).toBe(false);
        // After a pause, one deliberate key answers it.
        await sleep(1500);
        session.type('n');
        await session.waitForText('Tell the model why');
        session.press('Enter');
        await session.waitForText('done');
        expect(existsSync(path.join(workspace.dir, 'approved-by-typing'))).toBe(false);
      }),
    150_000,
  );

  test(
    'typing with pauses between words (slow typing) still answers nothing while it goes on',
    () =>
      unstalled(async () => {
        const { session, workspace } = await start([
          { text: ['One ', 'moment.'], chunkDelayMs: 400, toolCalls: [{ name: 'shell', args: { command: 'touch approved-by-typing' } }] },
          { text: 'done' },
        ]);
        await session.submit('tidy up');
        for (const word of ['and', 'yes', 'also', 'a', 'y', 'keep', 'going']) {
          await typeAlong(session, `${word} `, 150);
          await sleep(300);
        }
        expect(session.visible()).toContain('Allow shell');
        expect(existsSync(path.join(workspace.dir, 'approved-by-typing'))).toBe(false);
        await sleep(1500);
        session.type('y');
        await session.waitForText('done');
        expect(existsSync(path.join(workspace.dir, 'approved-by-typing'))).toBe(true);
      }),
    150_000,
  );
});

describe.skipIf(!hasTmux)('the trust and approval questions before the chat take no typed-ahead answer either (tmux)', () => {
  test(
    'a prompt typed into the trust question, Enter and all, trusts nothing',
    () =>
      unstalled(async () => {
        const workspace = makeTempRepo({ '.beans/settings.json': '{"permissions":{"mode":"yolo"}}' });
        const session = TmuxSession.start({
          workspace,
          env: {},
          program: [process.execPath, path.resolve(import.meta.dirname, 'trust-prompt-driver.mjs')],
          args: [],
        });
        open.push({ session, workspace });
        await session.waitForText('Esc not now', 15_000);
        // The person did not look up: the chat's first prompt, typed at speed, Enter included.
        await typeAlong(session, 'fix the failing test in src\nand run it\n');
        const screen = session.screen();
        expect(screen).not.toContain('[trusted');
        expect(screen).toMatch(/Ignored the keys typed as this appeared/);
        expect(existsSync(path.join(workspace.home, '.config', 'beans-agent', 'trusted-folders.json'))).toBe(false);
        await sleep(1500);
        session.press('Escape');
        await session.waitForText('[trusted: false]');
      }),
    150_000,
  );
});
