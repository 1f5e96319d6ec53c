import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellSandbox, type ShellSandbox } from '../../src/sandbox/index.js';
import { shellTool } from '../../src/tools/shell.js';
import type { Workspace } from '../../src/workspace/workspace.js';
import { sandboxUnavailable } from '../../../../test/support/sandbox.ts';
import { makeContext, run } from '../tools/helpers.js';

// A runner hosts several sessions in one process, each in its own worktree, with the same user
// settings: `sandbox.network.allowUnixSockets: ["./dev.sock"]` means each worktree's own dev socket.
// The sandbox runtime is one per process, so what the first sandbox resolved must not decide what a
// second one's commands reach: a session reaching another session's socket, or losing its own, was
// the bug (each sandbox now masks by its own list; the runner branch's a68073b, taken as it is). Its own file: the runtime is a process singleton.

interface Side {
  ws: Workspace;
  sandbox: ShellSandbox;
  server: net.Server;
  received: string[];
}

const sides: Side[] = [];
const tempParent = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-sockets-tmp-')));

async function side(): Promise<Side> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-sockets-ws-')));
  execFileSync('git', ['init', '-q'], { cwd: root });
  const received: string[] = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => received.push(chunk.toString()));
  });
  await new Promise<void>((resolve) => server.listen(path.join(root, 'dev.sock'), resolve));
  const sandbox = await createShellSandbox({ workspaceRoot: root, tempDir: tempParent, unixSockets: { allowUnixSockets: ['./dev.sock'] } });
  return { ws: { root, cwd: root, isGit: true }, sandbox, server, received };
}

beforeAll(async () => {
  if (sandboxUnavailable) return;
  sides.push(await side());
  sides.push(await side());
});
afterAll(async () => {
  for (const { sandbox, server, ws } of sides) {
    await sandbox.dispose();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(ws.root, { recursive: true, force: true });
  }
  rmSync(tempParent, { recursive: true, force: true });
});

// Sends `from` to the socket and says whether it got through.
const send = (from: Side, socket: string, text: string) =>
  run(
    shellTool,
    {
      command: `/usr/bin/python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${socket}'); s.sendall(b'${text}'); s.close(); print('connected')" 2>&1; true`,
    },
    { ...makeContext(from.ws), sandbox: from.sandbox },
  );

describe.skipIf(sandboxUnavailable)('allowUnixSockets with two workspaces in one process', () => {
  it("each workspace's commands reach its own allowed socket and not the other's", async () => {
    const [first, second] = sides as [Side, Side];
    const ownFirst = await send(first, path.join(first.ws.root, 'dev.sock'), 'first-own');
    const ownSecond = await send(second, path.join(second.ws.root, 'dev.sock'), 'second-own');
    const crossFirst = await send(first, path.join(second.ws.root, 'dev.sock'), 'first-cross');
    const crossSecond = await send(second, path.join(first.ws.root, 'dev.sock'), 'second-cross');
    // The listeners may read a moment after the client closed.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ownFirst.content).toContain('connected');
    expect(ownSecond.content).toContain('connected');
    expect(crossFirst.content).not.toContain('connected');
    expect(crossSecond.content).not.toContain('connected');
    expect(first.received.join('')).toBe('first-own');
    expect(second.received.join('')).toBe('second-own');
    // Each says what it allows: its own socket.
    expect(second.sandbox.summary).toContain(path.join(second.ws.root, 'dev.sock'));
    expect(second.sandbox.summary).not.toContain(path.join(first.ws.root, 'dev.sock'));
  });

  it('a sandbox wanting the filter beside these (no allowed socket) is refused, not run with their masks', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-sockets-ws-')));
    try {
      await expect(createShellSandbox({ workspaceRoot: root, tempDir: tempParent })).rejects.toThrow(/already running/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
