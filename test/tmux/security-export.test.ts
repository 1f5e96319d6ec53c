import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { makeTempRepo } from '../support/scratch.ts';
import { HOSTILE, terminalBytes } from '../support/terminal-bytes.ts';
import { TmuxSession, closeOpen, hasTmux, open } from './tmux.ts';

// Issue 53 item 5: /export wrote the model's raw escape sequences (OSC 52 clipboard, title, clear
// screen) into the file, and /copy put them on the clipboard; both now hold what the screen shows.

afterEach(closeOpen);

describe.skipIf(!hasTmux)('/export and /copy keep the model escape sequences out (tmux)', () => {
  test('the exported file and the copied answer hold no terminal controls', async () => {
    const server = await startScriptedOllama({ turns: [{ text: HOSTILE }] });
    const workspace = makeTempRepo({ 'README.md': '# demo\n' });
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything', 15_000);
    session.acceptClipboard();
    await session.submit('hi');
    await session.waitForText('end.');
    await session.submit('/export out.md');
    await session.waitForText('Exported the conversation to');
    const file = path.join(workspace.dir, 'out.md');
    expect(readFileSync(file, 'utf8')).toContain('Done.');
    expect(readFileSync(file, 'utf8')).toContain('end.');
    expect(terminalBytes(file)).toEqual([]);
    await session.submit('/copy');
    await session.waitForText('Copied the last answer');
    await session.waitFor(() => session.newestBuffer() !== '', 'the OSC 52 copy to reach tmux');
    const copied = session.newestBuffer();
    expect(copied).toContain('end.');
    expect(copied).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
