import { createRequire } from 'node:module';
import type * as ChildProcess from 'node:child_process';
import type * as Crypto from 'node:crypto';
import type * as FsPromises from 'node:fs/promises';
import type * as TimersPromises from 'node:timers/promises';
import type * as Util from 'node:util';
import type * as WorkerThreads from 'node:worker_threads';
import type * as Zlib from 'node:zlib';

interface Builtins {
  'node:child_process': typeof ChildProcess;
  'node:crypto': typeof Crypto;
  'node:fs/promises': typeof FsPromises;
  'node:timers/promises': typeof TimersPromises;
  'node:util': typeof Util;
  'node:worker_threads': typeof WorkerThreads;
  'node:zlib': typeof Zlib;
}

/**
 * A Node built-in, loaded when the code that uses it runs rather than when Beans starts. A static
 * `import { x } from 'node:crypto'` anywhere in core loads the module before the first request, and
 * an ESM import of a built-in also reads every export of its namespace, which runs the lazy ones:
 * node:crypto's `webcrypto`, node:util's `parseArgs`, `diff` and `setTraceSigInt` (which loads
 * worker_threads). Measured on Node 24: node:crypto ~3.5 ms of CPU this way, ~5.5 ms as an ESM
 * import; node:util ~0 ms this way (Node has loaded it already), ~3.5 ms as an ESM import.
 * process.getBuiltinModule is Node >= 22.3; require covers 22.0-22.2.
 */
export function builtin<Id extends keyof Builtins>(id: Id): Builtins[Id] {
  return process.getBuiltinModule?.(id) ?? createRequire(import.meta.url)(id);
}
