import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorize } from '../../src/permissions/authorize.js';
import { parseToolRules } from '../../src/permissions/rules.js';
import { createShellSandbox, sandboxReadDenials, type ShellSandbox } from '../../src/sandbox/index.js';
import { shellTool } from '../../src/tools/shell.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { sandboxUnavailable } from '../../../../test/support/sandbox.ts';
import { makeContext, makeOutsideDir, run } from '../tools/helpers.js';

// The real sandbox (bubblewrap through @anthropic-ai/sandbox-runtime) around the real shell tool.
// One configuration per process, so one sandbox serves every test here, with the workspace's parent
// writable; the server on 127.0.0.1 is allowed on one port only.
let server: http.Server;
let port: number;
let sandbox: ShellSandbox;
let ws: Workspace;
beforeAll(async () => {
  if (sandboxUnavailable) return;
  server = http.createServer((_request, response) => response.end('hello from the host'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  // Not makeWorkspace: its folders are removed after each test, and this one lives for the file.
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-sandbox-')));
  execFileSync('git', ['init', '-q'], { cwd: root });
  ws = { root, cwd: root, isGit: true };
  mkdirSync(path.join(root, 'secrets'));
  writeFileSync(path.join(root, '.env'), 'KEY=canary-secret\n');
  writeFileSync(path.join(root, 'secrets', 'a.pem'), 'canary-pem\n');
  const denyRead = sandboxReadDenials(parseToolRules('read_file(.env), read_file(secrets/**), shell(rm *)'), root);
  expect(denyRead).toEqual([path.join(root, '.env'), path.join(root, 'secrets/**')]);
  sandbox = await createShellSandbox({ workspaceRoot: ws.root, tempDir: path.join(ws.root, '.tmp'), allowedHosts: [`127.0.0.1:${port}`], denyRead });
});
afterAll(async () => {
  if (sandboxUnavailable) return;
  await sandbox.dispose();
  rmSync(ws.root, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const inSandbox = (command: string) => run(shellTool, { command }, { ...makeContext(ws), sandbox });

describe.skipIf(sandboxUnavailable)('createShellSandbox with the shell tool', () => {
  it('lets a command write in the workspace but not outside it', async () => {
    const outside = makeOutsideDir();
    const denied = await inSandbox(`touch ${outside}/canary`);
    expect(denied.isError).toBe(true);
    expect(denied.content).toContain('Read-only file system');
    expect(existsSync(path.join(outside, 'canary'))).toBe(false);
    const allowed = await inSandbox('echo inside > inside.txt');
    expect(allowed.isError).toBeUndefined();
    expect(readFileSync(path.join(ws.root, 'inside.txt'), 'utf8')).toBe('inside\n');
  });

  it("gives commands the sandbox's own temp folder as TMPDIR, inside the folder it was told to use", async () => {
    expect(path.dirname(sandbox.tempDir)).toBe(path.join(ws.root, '.tmp'));
    const result = await inSandbox('f=$(mktemp) && echo ok > "$f" && cat "$f" && echo "$TMPDIR"');
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe(`ok\n${sandbox.tempDir}`);
  });

  it('reaches an allowed host through the proxy and nothing else', async () => {
    const allowed = await inSandbox(`curl -sS -m 5 --noproxy '' http://127.0.0.1:${port}/`);
    expect(allowed.content).toBe('hello from the host');
    const otherPort = await inSandbox(`curl -sS -m 5 --noproxy '' http://127.0.0.1:${port + 1}/`);
    expect(otherPort.content).toContain('blocked');
    // Straight to the address, without the proxy: the sandbox's own loopback has nothing there.
    const direct = await inSandbox(`curl -sS -m 5 http://127.0.0.1:${port}/`);
    expect(direct.isError).toBe(true);
    expect(direct.content).not.toContain('hello from the host');
  });

  it('keeps the files that configure Beans, Claude Code, MCP and git read-only, and says why a command failed', async () => {
    for (const command of [
      'mkdir -p .beans && echo \'{"permissions":{"mode":"yolo"}}\' > .beans/settings.json',
      'echo {} > .mcp.json',
      'mkdir -p .claude && echo {} > .claude/settings.json',
      'echo x > .gitmodules',
      'echo x > .git/hooks/pre-commit',
      'git config core.hooksPath /tmp/evil',
    ]) {
      const result = await inSandbox(command);
      expect(result.isError, command).toBe(true);
      expect(result.content, command).toContain('Shell commands run in a sandbox');
    }
    for (const file of ['.beans/settings.json', '.mcp.json', '.claude/settings.json', '.gitmodules', '.git/hooks/pre-commit']) {
      expect(existsSync(path.join(ws.root, file)), file).toBe(false);
    }
    expect(readFileSync(path.join(ws.root, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
  });

  it('still lets git commit (only hooks and config are read-only in .git)', async () => {
    const result = await inSandbox('echo c > c.txt && git add c.txt && git -c user.name=t -c user.email=t@t commit -qm c && git log --oneline | wc -l');
    expect(result.content).toBe('1');
  });

  it('keeps files that read_file deny rules name from commands too', async () => {
    const result = await inSandbox('cat .env secrets/a.pem; grep -r canary . ; echo end');
    expect(result.content).not.toContain('canary-secret');
    expect(result.content).not.toContain('canary-pem');
    expect(result.content).toContain('end');
  });

  it('runs several commands at once', async () => {
    const results = await Promise.all([1, 2, 3].map((n) => inSandbox(`sleep 0.2; echo ${n} > par-${n}.txt; cat par-${n}.txt`)));
    expect(results.map((result) => result.content)).toEqual(['1', '2', '3']);
  });

  it('leaves no background process behind (the sandbox has its own PID namespace)', async () => {
    const marker = `${process.pid}7`;
    const result = await inSandbox(`sleep ${marker} & setsid sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & echo started`);
    expect(result.content).toBe('started');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ps = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
    expect(ps.split('\n').filter((line) => line.includes(`sleep ${marker}`) && !line.trim().startsWith('Z'))).toEqual([]);
  });

  it('refuses a second network configuration in the same process instead of running unsandboxed', async () => {
    await expect(createShellSandbox({ workspaceRoot: makeOutsideDir() })).rejects.toThrow(/already running/);
  });

  it("fences a second workspace's commands to that workspace, beside the first (a runner's sessions)", async () => {
    const other = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-sandbox-other-')));
    const second = await createShellSandbox({ workspaceRoot: other, tempDir: path.join(ws.root, '.tmp'), allowedHosts: [`127.0.0.1:${port}`] });
    try {
      const otherWs = { root: other, cwd: other, isGit: false };
      const inOther = (command: string) => run(shellTool, { command }, { ...makeContext(otherWs), sandbox: second });
      expect((await inOther('echo mine > mine.txt')).isError).toBeUndefined();
      expect(readFileSync(path.join(other, 'mine.txt'), 'utf8')).toBe('mine\n');
      const crossing = await inOther(`echo theirs > ${ws.root}/from-other.txt`);
      expect(crossing.isError).toBe(true);
      expect(existsSync(path.join(ws.root, 'from-other.txt'))).toBe(false);
      // And the first sandbox's commands still write only in theirs.
      const back = await inSandbox(`echo back > ${other}/from-first.txt`);
      expect(back.isError).toBe(true);
      expect(existsSync(path.join(other, 'from-first.txt'))).toBe(false);
    } finally {
      await second.dispose();
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('authorize with a sandbox', () => {
  const signal = new AbortController().signal;
  const ask = async () => ({ decision: 'deny' as const, reason: 'asked' });
  const decide = (options: Parameters<typeof createAuthorize>[0], tool: typeof shellTool | typeof writeFileTool, input: Record<string, unknown>) =>
    createAuthorize(options)({ call: { id: 'c', name: tool.name, arguments: input }, tool, input }, signal);

  it('runs shell commands without asking, unless a deny rule matches or plan mode is on', async () => {
    expect(await decide({ mode: 'default', sandboxed: true, ask }, shellTool, { command: 'npm test' })).toEqual({ allow: true });
    expect((await decide({ mode: 'default', sandboxed: true, ask, deny: parseToolRules('shell(rm *)') }, shellTool, { command: 'rm -rf x' })).allow).toBe(
      false,
    );
    expect((await decide({ mode: 'plan', sandboxed: true, ask }, shellTool, { command: 'npm test' })).allow).toBe(false);
  });

  it('still asks for edits, which the sandbox does not cover', async () => {
    expect((await decide({ mode: 'default', sandboxed: true, ask }, writeFileTool, { path: 'a.txt', content: 'x' })).allow).toBe(false);
  });
});
