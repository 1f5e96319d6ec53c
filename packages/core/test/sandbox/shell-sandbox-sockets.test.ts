// Several sandboxes of one process (a runner's sessions at once) with an allowed Unix socket named
// relative to the workspace (`./dev.sock`, as a project writes it): each sandbox's commands reach
// their own workspace's socket, never another sandbox's. Its own file: one socket setting per process.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellSandbox, type ShellSandbox } from '../../src/sandbox/index.js';
import { shellTool } from '../../src/tools/shell.js';
import { sandboxUnavailable } from '../../../../test/support/sandbox.ts';
import { makeContext, run } from '../tools/helpers.js';

interface Place {
  root: string;
  sandbox: ShellSandbox;
  connections: () => number;
  server: net.Server;
  open: Set<net.Socket>;
}

const places: Place[] = [];
beforeAll(async () => {
  if (sandboxUnavailable) return;
  for (let i = 0; i < 2; i++) {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), `beans-sockets-${i}-`)));
    execFileSync('git', ['init', '-q'], { cwd: root });
    let connections = 0;
    const open = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      connections += 1;
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(path.join(root, 'dev.sock'), resolve));
    const sandbox = await createShellSandbox({ workspaceRoot: root, unixSockets: { allowUnixSockets: ['./dev.sock'] } });
    places.push({ root, sandbox, server, open, connections: () => connections });
  }
});
afterAll(async () => {
  for (const place of places) {
    await place.sandbox.dispose();
    await new Promise<void>((resolve) => {
      place.server.close(() => resolve());
      for (const socket of place.open) socket.destroy();
    });
    rmSync(place.root, { recursive: true, force: true });
  }
});

const connect = (from: Place, socket: string) =>
  run(
    shellTool,
    { command: `echo hi | socat - UNIX-CONNECT:${socket} && echo connected; true` },
    { ...makeContext({ root: from.root, cwd: from.root, isGit: true }), sandbox: from.sandbox },
  );

describe.skipIf(sandboxUnavailable)('several sandboxes with a relative allowed socket', () => {
  it("reaches its own workspace's socket and not the other sandbox's", async () => {
    const [first, second] = places as [Place, Place];
    for (const [own, other] of [
      [first, second],
      [second, first],
    ] as const) {
      const before = { own: own.connections(), other: other.connections() };
      const reached = await connect(own, path.join(own.root, 'dev.sock'));
      expect(reached.content, `${own.root} to its own socket`).toContain('connected');
      const crossing = await connect(own, path.join(other.root, 'dev.sock'));
      expect(crossing.content, `${own.root} to ${other.root}'s socket`).not.toContain('connected');
      expect(own.connections()).toBe(before.own + 1);
      expect(other.connections()).toBe(before.other);
    }
  });
});
