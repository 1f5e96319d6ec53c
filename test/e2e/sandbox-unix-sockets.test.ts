// Issue 62: under --sandbox a command must not reach a Unix socket outside the workspace (through
// $SSH_AUTH_SOCK that is the user's SSH keys, through /var/run/docker.sock root on the machine).
// A listener on a socket outside the workspace, clients in Python, Node and socat run by a scripted
// model, from the built bundle and from the packed tarball installed with npm: the listener must
// receive nothing. An allowed socket still works; without the seccomp binary the run says so and
// refuses commands unless the user allows running without the filter.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxUnavailable } from '../support/sandbox.ts';
import { BEANS_BIN, makeTempRepo, scriptedOllama, type BeansRun, type TempRepo } from './harness.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const ARCH = process.arch === 'arm64' ? 'arm64' : 'x64';

interface Listener {
  path: string;
  connections: number;
  received: string;
  close(): Promise<void>;
}

async function listen(socketPath: string): Promise<Listener> {
  const state = { connections: 0, received: '' };
  const server = net.createServer((socket) => {
    state.connections += 1;
    // A client that ends its connection early resets it: not the test's business.
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => (state.received += chunk.toString()));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    path: socketPath,
    get connections() {
      return state.connections;
    },
    get received() {
      return state.received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Each client writes "<name> connected" when it got through, else its error; `; true` keeps going.
const clients = (socket: string) => [
  `/usr/bin/python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${socket}'); s.send(b'python'); print('python connected')" >> clients.txt 2>&1; true`,
  `node -e "const c=require('net').connect('${socket}'); c.on('connect',()=>{c.end('node'); console.log('node connected')}); c.on('error',(e)=>console.log('node', e.code))" >> clients.txt 2>&1; true`,
  `echo socat | socat - UNIX-CONNECT:${socket} >> clients.txt 2>&1 && echo socat connected >> clients.txt; true`,
];

function runFrom(bin: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<BeansRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`beans ${args.join(' ')} did not finish\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started });
    });
    child.stdin.end('');
  });
}

interface Run {
  result: BeansRun;
  repo: TempRepo;
  clients: string;
}

async function runCommands(bin: string, commands: string[], options: { args?: string[]; settings?: unknown; repo?: TempRepo } = {}): Promise<Run> {
  const repo = options.repo ?? makeTempRepo({ 'a.txt': 'a\n' });
  if (options.settings) {
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify(options.settings));
  }
  const tmp = path.join(path.dirname(repo.dir), 'tmp');
  mkdirSync(tmp, { recursive: true });
  const model = await scriptedOllama({ turns: [{ toolCalls: commands.map((command) => ({ name: 'shell', args: { command } })) }, { text: 'done' }] });
  const result = await runFrom(bin, ['-p', 'go', '-o', 'json', ...(options.args ?? ['--sandbox'])], {
    cwd: repo.dir,
    env: { ...repo.env, TMPDIR: tmp, OLLAMA_HOST: model.url },
  });
  const file = path.join(repo.dir, 'clients.txt');
  return { result, repo, clients: existsSync(file) ? readFileSync(file, 'utf8') : '' };
}

/** A folder outside every workspace and temp folder of the runs, for the listeners. */
let outside: string;
beforeAll(() => {
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-sockets-')));
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));

function expectRefused(run: Run, listener: Listener) {
  expect(run.result.code, run.result.stderr).toBe(0);
  expect(listener.connections).toBe(0);
  expect(listener.received).toBe('');
  expect(run.clients).not.toContain('connected');
  // Each client ran and was refused (not merely missing).
  expect(run.clients).toMatch(/PermissionError|Operation not permitted/);
  expect(run.clients).toContain('node EPERM');
}

// Two ways around a filter on socket() alone, on x64: the 32-bit ABI (int 0x80, where socket is
// call 359; the filter must not be native-only), and io_uring, whose IORING_OP_SOCKET makes a socket
// without the socket() call (its setup must be refused). Python runs the 32-bit call from a page of
// machine code, then connects the descriptor it got with the ordinary (64-bit) connect().
const EVASIONS = {
  'ia32.py': `import ctypes, mmap, socket, sys
code = bytes([0x53, 0xb8, 0x67, 0x01, 0, 0, 0xbb, 1, 0, 0, 0, 0xb9, 1, 0, 0, 0, 0x31, 0xd2, 0xcd, 0x80, 0x5b, 0xc3])
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
fd = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
print("ia32 socket", fd)
if fd >= 0:
    s = socket.socket(fileno=fd)
    s.connect(sys.argv[1]); s.send(b"ia32"); print("ia32 connected")
`,
  'uring.py': `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(425, 8, ctypes.create_string_buffer(120))
print("io_uring connected" if fd >= 0 else "io_uring " + os.strerror(ctypes.get_errno()))
`,
};
const evasions = (socket: string) => [
  `python3 ia32.py ${socket} >> clients.txt 2>&1; echo "ia32 exit $?" >> clients.txt; true`,
  'python3 uring.py >> clients.txt 2>&1; true',
];

describe.skipIf(sandboxUnavailable)('--sandbox and Unix sockets outside the workspace (issue 62)', { timeout: 90_000 }, () => {
  it.skipIf(process.arch !== 'x64')('the 32-bit system call ABI and io_uring do not get around the filter', async () => {
    const listener = await listen(path.join(outside, 'evasion.sock'));
    try {
      const open = await runCommands(BEANS_BIN, evasions(listener.path), { args: ['--yolo'], repo: makeTempRepo(EVASIONS) });
      // Unsandboxed, both work here: the test can fail.
      expect(open.clients).toContain('ia32 connected');
      expect(open.clients).toContain('io_uring connected');
      expect(listener.connections).toBe(1);
      const fenced = await runCommands(BEANS_BIN, evasions(listener.path), { repo: makeTempRepo(EVASIONS) });
      expect(fenced.result.code, fenced.result.stderr).toBe(0);
      expect(fenced.clients).not.toContain('connected');
      // The filter kills a process making a 32-bit system call (SIGSYS, 128 + 31) and refuses io_uring.
      expect(fenced.clients).toContain('ia32 exit 159');
      expect(fenced.clients).toContain('io_uring Operation not permitted');
      expect(listener.connections).toBe(1);
    } finally {
      await listener.close();
    }
  });

  it('from the built bundle: Python, Node and socat clients reach nothing', async () => {
    const listener = await listen(path.join(outside, 'bundle-agent.sock'));
    try {
      const run = await runCommands(BEANS_BIN, clients(listener.path));
      expectRefused(run, listener);
    } finally {
      await listener.close();
    }
  });

  it('without --sandbox the same clients do reach the listener (the test can fail)', async () => {
    const listener = await listen(path.join(outside, 'control.sock'));
    try {
      const run = await runCommands(BEANS_BIN, clients(listener.path), { args: ['--yolo'] });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(listener.connections).toBe(3);
      expect(listener.received).toContain('python');
      expect(listener.received).toContain('node');
      expect(listener.received).toContain('socat');
    } finally {
      await listener.close();
    }
  });

  it('an allowed socket (sandbox.network.allowUnixSockets, a project dev socket) still works; any other is refused', async () => {
    const repo = makeTempRepo({ 'a.txt': 'a\n' });
    const dev = await listen(path.join(repo.dir, 'dev.sock'));
    const other = await listen(path.join(outside, 'other.sock'));
    try {
      const run = await runCommands(BEANS_BIN, [...clients(dev.path), ...clients(other.path)], {
        repo,
        settings: { sandbox: { enabled: true, network: { allowUnixSockets: ['./dev.sock'] } } },
        args: [],
      });
      expect(run.result.code, run.result.stderr).toBe(0);
      expect(dev.connections, run.clients).toBe(3);
      expect(dev.received).toContain('python');
      expect(dev.received).toContain('node');
      expect(dev.received).toContain('socat');
      expect(other.connections).toBe(0);
      expect(other.received).toBe('');
      expect(run.clients.match(/connected/g)).toHaveLength(3);
    } finally {
      await dev.close();
      await other.close();
    }
  });

  it('beans config says whether the filter is active', async () => {
    const repo = makeTempRepo();
    const result = await runFrom(BEANS_BIN, ['config', '--json'], { cwd: repo.dir, env: repo.env });
    const config = JSON.parse(result.stdout) as { sandbox: { unixSockets: { state: string; detail: string } } };
    expect(config.sandbox.unixSockets.state).toBe('filter');
    expect(config.sandbox.unixSockets.detail).toContain(path.join('vendor', 'seccomp', ARCH, 'apply-seccomp'));
  });
});

describe.skipIf(sandboxUnavailable)('--sandbox from the packed tarball installed with npm (issue 62)', { timeout: 90_000 }, () => {
  let scratch: string;
  let installed: string;
  let bin: string;
  beforeAll(() => {
    scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-sockets-pack-')));
    execFileSync('npm', ['pack', '--pack-destination', scratch, '--loglevel=error'], { cwd: REPO, stdio: 'ignore', timeout: 120_000 });
    const tarball = path.join(
      scratch,
      readdirSync(scratch).find((name) => name.endsWith('.tgz'))!,
    );
    const prefix = path.join(scratch, 'prefix');
    execFileSync('npm', ['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
      cwd: scratch,
      stdio: 'ignore',
      timeout: 120_000,
    });
    bin = path.join(prefix, 'bin', 'beans');
    installed = path.join(prefix, 'lib', 'node_modules', 'beans');
  }, 240_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('applies the filter with the binary shipped in the package: Python, Node and socat clients reach nothing', async () => {
    // Both architectures ship, each an executable ELF for its machine (e_machine: 0x3e x86-64, 0xb7 AArch64).
    for (const [arch, machine] of [
      ['x64', 0x3e],
      ['arm64', 0xb7],
    ] as const) {
      const binary = path.join(installed, 'packages/cli/dist/bundle/vendor/seccomp', arch, 'apply-seccomp');
      expect(statSync(binary).mode & 0o111, binary).not.toBe(0);
      const header = readFileSync(binary).subarray(0, 20);
      expect(header.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
      expect(header.readUInt16LE(18), arch).toBe(machine);
    }
    const listener = await listen(path.join(outside, 'tarball-agent.sock'));
    try {
      expectRefused(await runCommands(bin, clients(listener.path)), listener);
    } finally {
      await listener.close();
    }
  });

  it('a kernel that refuses the filter, or a binary that applies none, is the same refusal: one line, no command', { timeout: 120_000 }, async () => {
    const listener = await listen(path.join(outside, 'fake-filter.sock'));
    try {
      for (const [name, script, reason] of [
        // What apply-seccomp says where the kernel has no seccomp (prctl fails).
        ['kernel', '#!/bin/sh\necho "apply-seccomp: prctl(PR_SET_SECCOMP): Invalid argument" >&2\nexit 1\n', 'this kernel refused it'],
        // A binary that runs the command and filters nothing: the probe's socket must be refused.
        ['unfiltered', '#!/bin/sh\nexec "$@"\n', 'did not apply it'],
      ] as const) {
        const copy = path.join(scratch, `fake-seccomp-${name}`);
        cpSync(installed, copy, { recursive: true, verbatimSymlinks: true });
        writeFileSync(path.join(copy, 'packages/cli/dist/bundle/vendor/seccomp', ARCH, 'apply-seccomp'), script, { mode: 0o755 });
        const run = await runCommands(path.join(copy, 'bin', 'beans'), [...clients(listener.path), 'touch ran.txt']);
        expect(run.result.code, run.result.stderr).toBe(0);
        const lines = run.result.stderr.split('\n').filter((line) => /seccomp|Unix socket filter/i.test(line));
        expect(lines, name).toHaveLength(1);
        expect(lines[0]).toContain(reason);
        expect(lines[0]).toContain('shell commands are refused');
        expect(existsSync(path.join(run.repo.dir, 'ran.txt')), name).toBe(false);
        expect(run.clients).toBe('');
      }
      expect(listener.connections).toBe(0);
    } finally {
      await listener.close();
    }
  });

  it(
    'with the binary removed, says so in one line at start and refuses commands unless running without the filter is allowed',
    { timeout: 120_000 },
    async () => {
      // A copy of the installed package without its seccomp binaries.
      const copy = path.join(scratch, 'without-seccomp');
      cpSync(installed, copy, { recursive: true, verbatimSymlinks: true });
      rmSync(path.join(copy, 'packages/cli/dist/bundle/vendor'), { recursive: true, force: true });
      const launcher = path.join(copy, 'bin', 'beans');
      const listener = await listen(path.join(outside, 'no-filter.sock'));
      try {
        const refused = await runCommands(launcher, [...clients(listener.path), 'touch ran.txt']);
        expect(refused.result.code, refused.result.stderr).toBe(0);
        const lines = refused.result.stderr.split('\n').filter((line) => /seccomp|Unix socket filter/i.test(line));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain('shell commands are refused');
        expect(lines[0]).toContain('sandbox.network.allowAllUnixSockets');
        expect(existsSync(path.join(refused.repo.dir, 'ran.txt'))).toBe(false);
        expect(refused.clients).toBe('');
        expect(listener.connections).toBe(0);
        const config = JSON.parse((await runFrom(launcher, ['config', '--json'], { cwd: refused.repo.dir, env: refused.repo.env })).stdout) as {
          sandbox: { unixSockets: { state: string } };
        };
        expect(config.sandbox.unixSockets.state).toBe('refused');

        // The user's explicit choice: commands run, without the filter, and the start says that too.
        const allowed = await runCommands(launcher, ['touch ran.txt'], {
          settings: { sandbox: { enabled: true, network: { allowAllUnixSockets: true } } },
          args: [],
        });
        expect(allowed.result.code, allowed.result.stderr).toBe(0);
        expect(existsSync(path.join(allowed.repo.dir, 'ran.txt'))).toBe(true);
        expect(allowed.result.stderr).toContain('commands run without it');
      } finally {
        await listener.close();
      }
    },
  );
});
