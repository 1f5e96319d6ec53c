#!/usr/bin/env node
// Entry point. `--version` must answer before anything heavy loads: start-up time is a feature.
import { VERSION } from './version.js';

// Allocator settings bin/beans made for this process alone (glibc read them at start): the programs
// Beans starts inherit process.env, so they leave it.
for (const name of process.env.BEANS_LAUNCHER_MALLOC?.split(' ') ?? []) delete process.env[name];
delete process.env.BEANS_LAUNCHER_MALLOC;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  // Caches compiled bytecode between runs in Beans' cache folder; cuts later start-ups by a fifth.
  const cacheFolder = (await import('./compile-cache.js')).enableCompileCache();
  // The bundle's CommonJS chunks keep a cache made after they ran (bundle-cache.ts); their import()
  // of anything but another chunk comes here, to resolve from this folder like an ES module would.
  // Without a home folder to keep it in, the chunks compile as Node does.
  if (cacheFolder && !process.env.NODE_DISABLE_COMPILE_CACHE)
    (await import('./bundle-cache.js')).cacheBundleChunks(import.meta.dirname, `${cacheFolder}/chunks`);
  (globalThis as Record<symbol, unknown>)[Symbol.for('beans.import')] = (specifier: string) => import(specifier);
  const { guardStderrMessages } = await import('./output/terminal-safe.js');
  // A reader that stops early (`beans -p ... | head -1`) is not an error: end quietly.
  const endQuietlyOnEpipe = (stream: NodeJS.WriteStream) =>
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  whenMade('stdout', endQuietlyOnEpipe);
  whenMade('stderr', (stream) => guardStderrMessages(endQuietlyOnEpipe(stream)));
  let code: number;
  if (argv.length === 1 && argv[0] === 'acp') {
    // Editors start `beans acp` bare and wait for its `initialize` answer: that path skips the
    // command-line parser (with flags, `beans acp ...` goes through it like every command).
    const { runAcp } = await import('./acp/index.js');
    code = await runAcp({ outputFormat: 'text' });
  } else {
    const { runCli } = await import('./cli.js');
    code = await runCli(argv);
  }
  // Exit explicitly, since idle keep-alive sockets of the HTTP clients would hold the process open,
  // but only once stdout and stderr are drained: a slow reader on a pipe must still get everything.
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

/**
 * Node makes process.stdout and process.stderr on first use (~1.5 ms of CPU each for a pipe or a
 * terminal): `handle` is attached then, so `beans -p` sends its request before paying for streams it
 * writes to only afterwards.
 */
function whenMade(name: 'stdout' | 'stderr', handle: (stream: NodeJS.WriteStream) => void): void {
  const made = Object.getOwnPropertyDescriptor(process, name);
  if (!made?.get || !made.configurable) return handle(process[name]);
  Object.defineProperty(process, name, {
    ...made,
    get() {
      Object.defineProperty(process, name, made);
      const stream = process[name];
      handle(stream);
      return stream;
    },
  });
}

function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
