// Issue 18: memory in the real program. /memory hands the terminal to $EDITOR and takes it back;
// a # line saves a note where the user picks.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { TmuxSession, hasTmux, closeOpen, open } from './tmux.ts';
import { makeTempRepo } from '../support/scratch.ts';

afterEach(closeOpen);

describe.skipIf(!hasTmux)('memory in a real terminal (tmux)', () => {
  test('/memory opens the picked file in $EDITOR with a cooked terminal, then the chat takes keys again', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'unused' }] });
    const workspace = makeTempRepo({ 'AGENTS.md': '# Rules\n' });
    // An "editor" that reads a typed line: it only gets one if the terminal is back in line mode.
    const editor = path.join(workspace.home, 'line-editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "EDITOR READY> "\nread line\necho "$line" >> "$1"\n');
    chmodSync(editor, 0o755);
    const session = TmuxSession.start({ workspace, env: { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', EDITOR: editor } });
    open.push({ session, server, workspace });
    await session.waitForText('Ask anything');

    await session.submit('/memory');
    await session.waitForText('Open a memory file in your editor');
    session.press('Enter');
    await session.waitForText('EDITOR READY>');
    session.type('typed in the editor');
    session.press('Enter');
    await session.waitForText(`Edited ${path.join(workspace.dir, 'AGENTS.md')}`);
    expect(readFileSync(path.join(workspace.dir, 'AGENTS.md'), 'utf8')).toBe('# Rules\ntyped in the editor\n');

    await session.submit('# Deploy with make deploy');
    await session.waitForText('Save this note to');
    session.press('Enter');
    await session.waitForText('Noted in');
    expect(readFileSync(path.join(workspace.dir, 'AGENTS.md'), 'utf8')).toBe('# Rules\ntyped in the editor\n- Deploy with make deploy\n');
  });
});
