import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { TmuxSession, hasTmux } from './tmux.ts';
import { makeTempRepo, type TempRepo } from '../support/scratch.ts';

// The trust question before the chat mounts, in a real terminal: what it lists, keys typed before it
// appeared, select-then-Enter, and what it records.
const DRIVER = path.resolve(import.meta.dirname, 'trust-prompt-driver.mjs');
const NODE = process.execPath;

const open: { session: TmuxSession; workspace: TempRepo }[] = [];
afterEach(() => {
  for (const entry of open.splice(0)) {
    entry.session.kill();
    entry.workspace.cleanup();
  }
});

function start(settings: string, args: string[] = []) {
  const workspace = makeTempRepo({ '.beans/settings.json': settings });
  const session = TmuxSession.start({ workspace, env: {}, program: [NODE, DRIVER, ...args], args: [] });
  open.push({ session, workspace });
  return { session, workspace };
}

const trustFile = (workspace: TempRepo) => path.join(workspace.home, '.config', 'beans-agent', 'trusted-folders.json');

describe.skipIf(!hasTmux)('the workspace trust question (tmux)', () => {
  test('lists exactly what the folder asks for; keys typed before it appeared do nothing; select then Enter trusts', async () => {
    const { session, workspace } = start('{"permissions":{"mode":"yolo","allow":["shell"],"deny":["shell(rm *)"]}}');
    // Typed ahead, as if the user kept typing while Beans started: "3" would pick "Don't trust", Enter confirm it.
    session.type('3');
    session.press('Enter');
    const screen = await session.waitForText('Esc not now');
    expect(screen).toContain('• permissions.mode "yolo"  (.beans/settings.json)');
    expect(screen).toContain('• permissions.allow ["shell"]  (.beans/settings.json)');
    expect(screen).not.toContain('deny');
    expect(screen).toContain(`› 1. Trust this folder (${workspace.dir})`);
    // Keys typed ahead count as typing: the next key answers after a 0.6 s pause (issue 53 item 7).
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(session.screen()).not.toContain('[trusted');
    expect(existsSync(trustFile(workspace))).toBe(false);

    session.press('Down');
    await session.waitForText('› 2. Trust the parent folder');
    session.press('Up');
    await session.waitForText('› 1. Trust this folder');
    session.press('Enter');
    await session.waitForText('[trusted: true]');
    expect(JSON.parse(readFileSync(trustFile(workspace), 'utf8')).folders[workspace.dir]).toBe('trusted');
  });

  test('"Don\'t trust" is recorded, so the question is asked once', async () => {
    const first = start('{"permissions":{"allow":["shell"]}}');
    await first.session.waitForText('Esc not now');
    await new Promise((resolve) => setTimeout(resolve, 400));
    first.session.type('3');
    await first.session.waitForText("› 3. Don't trust");
    first.session.press('Enter');
    await first.session.waitForText('[trusted: false]');
    expect(JSON.parse(readFileSync(trustFile(first.workspace), 'utf8')).folders[first.workspace.dir]).toBe('untrusted');

    const again = TmuxSession.start({ workspace: first.workspace, env: {}, program: [NODE, DRIVER], args: [] });
    open.push({ session: again, workspace: makeTempRepo() });
    await again.waitForText('[no trust question]');
  });

  test('Esc records nothing; --trust and a folder that asks for nothing never ask', async () => {
    const { session, workspace } = start('{"permissions":{"mode":"auto-edit"}}');
    await session.waitForText('Esc not now');
    await new Promise((resolve) => setTimeout(resolve, 400));
    session.press('Escape');
    await session.waitForText('[trusted: false]');
    expect(existsSync(trustFile(workspace))).toBe(false);

    await start('{"permissions":{"mode":"auto-edit"}}', ['--trust']).session.waitForText('[no trust question]');
    await start('{"permissions":{"deny":["shell"]}}').session.waitForText('[no trust question]');
  });

  // Issue 43, items 1 and 2: servers a repository's plugins ship ask too, and a server added after
  // trust is asked about on its own.
  test('a folder that ships only a plugin MCP server asks; trusting records it; a server added later is asked about alone', async () => {
    const workspace = makeTempRepo({
      'plugins/tools/commands/hi.md': 'hi\n',
      'plugins/tools/.mcp.json': JSON.stringify({ mcpServers: { tools: { command: 'touch', args: ['/tmp/never-run'] } } }),
    });
    const first = TmuxSession.start({ workspace, env: {}, program: [NODE, DRIVER], args: [] });
    open.push({ session: first, workspace });
    const screen = await first.waitForText('Esc not now');
    expect(screen).toContain('• MCP server tools "touch /tmp/never-run"  (plugins/tools/.mcp.json)');
    await new Promise((resolve) => setTimeout(resolve, 400));
    first.press('Enter');
    await first.waitForText('[trusted: true]');
    const recorded = path.join(workspace.home, '.config', 'beans-agent', 'trusted-declarations.json');
    expect(JSON.parse(readFileSync(recorded, 'utf8')).folders[workspace.dir]).toHaveLength(1);

    workspace.write(
      'plugins/tools/.mcp.json',
      JSON.stringify({ mcpServers: { tools: { command: 'touch', args: ['/tmp/never-run'] }, later: { command: 'touch', args: ['/tmp/later'] } } }),
    );
    const second = TmuxSession.start({ workspace, env: {}, program: [NODE, DRIVER], args: [] });
    open.push({ session: second, workspace: makeTempRepo() });
    const asked = await second.waitForText('Esc not now');
    expect(asked).toContain('This trusted folder declares a new MCP server since you trusted it:');
    expect(asked).toContain('MCP server later (plugins/tools/.mcp.json): touch /tmp/later');
    expect(asked).not.toContain('never-run');
    await new Promise((resolve) => setTimeout(resolve, 400));
    second.press('Enter');
    await second.waitForText('[approved: 1]');
    expect(JSON.parse(readFileSync(recorded, 'utf8')).folders[workspace.dir]).toHaveLength(2);
  });
});
