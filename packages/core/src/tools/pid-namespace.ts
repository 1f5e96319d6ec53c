import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { builtin } from '../node-builtins.js';

// node:timers/promises when a wait happens: as a static import it cost every start ~0.4 ms.
const sleep = (ms: number) => builtin('node:timers/promises').setTimeout(ms);

// Why a PID namespace per command: the run tag (process-tree.ts) finds what a command left behind
// only while the process keeps its environment; `env -i sh -c 'sleep 999 &'`, double-forked, was
// found by nothing. A process in a PID namespace cannot leave it, and the kernel kills everything in
// it when its first process (its init) ends, so ending the namespace ends all of them.
//
// The namespace's init is a holder (`head -c 1` reading a pipe from Beans), not the command: the
// command joins it with nsenter, so when the command ends the namespace lives on long enough for the
// run tag to name what the command left (the model is told), and then Beans ends the holder. If Beans
// itself dies the pipe closes, the holder reads end-of-file and the namespace ends too.

/** A PID namespace for one command; `end` kills everything still in it and resolves once it is empty. */
export interface PidNamespace {
  /** Program and arguments that run `bash -c command` inside the namespace, in folder `cwd`. */
  wrap: (command: string, cwd: string) => [string, string[]];
  end(): Promise<void>;
}

const rootUser = process.getuid?.() === 0;
// Unprivileged: a user namespace mapping only this user to itself (nothing gains a privilege), which
// nsenter must join too (keeping this user's credentials).
const UNSHARE_ARGS = [...(rootUser ? [] : ['--user', '--map-current-user']), '--pid', '--fork', '--kill-child', '--mount-proc'];
const NSENTER_ARGS = rootUser ? ['--pid', '--mount'] : ['--user', '--preserve-credentials', '--pid', '--mount'];

let available: boolean | undefined;

/** Whether commands can run in their own PID namespace here (Linux, util-linux, namespaces allowed); probed once. */
export function pidNamespacesAvailable(): boolean {
  if (available !== undefined) return available;
  if (process.platform !== 'linux' || process.env.BEANS_NO_PID_NAMESPACE === '1') return (available = false);
  const probe = builtin('node:child_process').spawnSync('unshare', [...UNSHARE_ARGS, '--', 'nsenter', '--version'], { stdio: 'ignore', timeout: 5_000 });
  return (available = probe.status === 0);
}

/**
 * A namespace for one command; undefined when the system does not allow it (the caller runs the
 * command as before). One namespace is kept ready ahead of the next command, so a command waits only
 * for nsenter, not for unshare: the spare holds one idle `head` (unref'd: it never keeps Beans alive).
 */
export async function openPidNamespace(): Promise<PidNamespace | undefined> {
  if (!pidNamespacesAvailable()) return undefined;
  const ready = spare ?? startNamespace();
  spare = startNamespace();
  const namespace = await ready;
  namespace?.claim();
  return namespace;
}

let spare: Promise<(PidNamespace & { claim(): void }) | undefined> | undefined;

async function startNamespace(): Promise<(PidNamespace & { claim(): void }) | undefined> {
  // The holder is the namespace's init, whose /proc/1/environ every command in it can read: it gets
  // no environment but PATH, so Beans' own (the provider keys) is not there to read.
  const holder = builtin('node:child_process').spawn('unshare', [...UNSHARE_ARGS, '--', 'head', '-c', '1'], {
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  holder.on('error', () => undefined);
  holder.stdin.on('error', () => undefined);
  // A spare must not keep the process alive; the one in use is referenced again by claim().
  holder.unref();
  (holder.stdin as unknown as { unref?: () => void }).unref?.();
  const exited = once(holder, 'exit').then(() => undefined);
  const init = await initOf(holder);
  // SIGKILL to unshare: --kill-child kills the namespace's init with it, and the kernel kills every
  // process left in the namespace as the init exits. (Closing the holder's stdin to let it exit, and
  // waiting for the namespace to empty, took 1-2 s whenever a zombie was left in it, which every Esc
  // and every cancelled command paid.)
  const end = async () => {
    holder.kill('SIGKILL');
    await exited;
  };
  if (init === undefined) {
    await end();
    return undefined;
  }
  return {
    wrap: (command, cwd) => ['nsenter', [`--target=${init}`, ...NSENTER_ARGS, `--wd=${cwd}`, '--', '/bin/bash', '-c', command]],
    end,
    claim: () => {
      holder.ref();
      (holder.stdin as unknown as { ref?: () => void }).ref?.();
    },
  };
}

/** The pid of unshare's child, the namespace's init, once it exists (a few milliseconds). */
async function initOf(holder: ChildProcess): Promise<number | undefined> {
  const deadline = Date.now() + 2_000;
  while (holder.pid !== undefined && holder.exitCode === null && Date.now() < deadline) {
    try {
      const children = readFileSync(`/proc/${holder.pid}/task/${holder.pid}/children`, 'utf8').trim();
      // The child exists before it has entered the namespace; nsenter needs its namespace, so check it moved.
      if (children) {
        const pid = Number(children.split(' ')[0]);
        if (readFileSync(`/proc/${pid}/status`, 'utf8').match(/^NSpid:\s+\d+\s+1$/m)) return pid;
      }
    } catch {
      // Not there yet.
    }
    await sleep(1);
  }
  return undefined;
}
