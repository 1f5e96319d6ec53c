import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BackgroundTasks } from '../../src/tools/background-tasks.js';
import { shellOutputTool } from '../../src/tools/shell-output.js';
import { shellTool } from '../../src/tools/shell.js';
import { makeContext, makeOutsideDir, makeWorkspace, run } from './helpers.js';

// Ctrl+B's seam: a running foreground `shell` call offers itself to the session's registry, and
// moveForegroundToBackground() makes it hand the same process over and return at once.

/** "pid args" of the live (non-zombie) processes whose command line contains `marker`. */
function liveProcesses(marker: string): string[] {
  return table()
    .filter((row) => row.args.includes(marker))
    .map((row) => `${row.pid} ${row.args}`);
}

/**
 * The pids of the outermost processes whose command line contains `marker` (their parent's does not):
 * the command itself, not the short-lived forks bash makes for each `sleep 0.05` (a fork carries its
 * parent's command line until it execs).
 */
function commandRoots(marker: string): number[] {
  const rows = table();
  const matching = new Set(rows.filter((row) => row.args.includes(marker)).map((row) => row.pid));
  return rows.filter((row) => matching.has(row.pid) && !matching.has(row.ppid)).map((row) => row.pid);
}

function table(): { pid: number; ppid: number; args: string }[] {
  const ps = execFileSync('ps', ['-eo', 'stat=,pid=,ppid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((line) => /^\s*(\S+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && !match[1]!.startsWith('Z') && !match[4]!.includes('ps -eo'))
    .map((match) => ({ pid: Number(match[2]), ppid: Number(match[3]), args: match[4]! }));
}

const registries: BackgroundTasks[] = [];
afterEach(async () => {
  for (const tasks of registries.splice(0)) await tasks.killAll();
});

function setup() {
  const tasks = new BackgroundTasks();
  registries.push(tasks);
  const ws = makeWorkspace();
  const abort = new AbortController();
  const ctx = makeContext(ws, { backgroundTasks: tasks, outputDir: makeOutsideDir(), signal: abort.signal });
  return { tasks, ws, ctx, abort };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('moving a foreground shell command to the background (Ctrl+B)', () => {
  it('hands the same process over: the call returns with the task id and the output so far, the task reads on, kill ends it all', async () => {
    const { tasks, ws, ctx, abort } = setup();
    const marker = `${process.pid}3`;
    const lines: string[] = [];
    const call = run(
      shellTool,
      { command: `echo before; while [ ! -f go ]; do sleep 0.05; done; echo after; sleep ${marker}` },
      { ...ctx, onUpdate: (text) => lines.push(text) },
    );
    await until(() => lines.join('\n').includes('before'), 'the first line');
    expect(tasks.hasForeground()).toBe(true);
    const rootsBefore = commandRoots('while [ ! -f go ]');
    expect(rootsBefore).toHaveLength(1);

    expect(tasks.moveForegroundToBackground()).toBe(1);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(String(result.content)).toMatch(/^The user moved this command to the background as task bg-1; it is still running\./);
    expect(String(result.content)).toContain('Output so far:\nbefore');
    expect(result.details).toMatchObject({ kind: 'shell', backgroundTask: 'bg-1' });
    expect(tasks.hasForeground()).toBe(false);
    expect(tasks.get('bg-1')).toMatchObject({ state: 'running', recentLines: ['before'] });
    // The same process, not a second run: the loop waiting for `go` is still the one it was.
    expect(commandRoots('while [ ! -f go ]')).toEqual(rootsBefore);

    // The call's signal ending (the turn going on, or an Esc) no longer reaches the task.
    abort.abort();
    writeFileSync(path.join(ws.root, 'go'), '');
    const later = await run(shellOutputTool, { task_id: 'bg-1', filter: 'after', wait_ms: 10_000 }, { ...ctx, signal: new AbortController().signal });
    expect(String(later.content)).toMatch(/^Task bg-1: running for \d+s\.\nafter$/);
    expect(tasks.output('bg-1')).toMatchObject({ lines: ['before', 'after'], totalLines: 2 });
    expect(liveProcesses(`sleep ${marker}`).length).toBeGreaterThan(0);

    await tasks.kill('bg-1');
    expect(tasks.get('bg-1')?.state).toBe('killed');
    // The kernel may take a moment to finish killing a PID namespace on a loaded machine.
    for (let i = 0; i < 50 && liveProcesses(`sleep ${marker}`).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(liveProcesses(`sleep ${marker}`)).toEqual([]);
  });

  it('a task that ends after the move is told like any other, and nothing is asked when no command runs', async () => {
    const { tasks, ws, ctx } = setup();
    expect(tasks.moveForegroundToBackground()).toBe(0);
    const quick = await run(shellTool, { command: 'echo done' }, ctx);
    expect(String(quick.content)).toBe('done');
    expect(tasks.hasForeground()).toBe(false); // a call that ended withdrew its offer

    const call = run(shellTool, { command: 'while [ ! -f go ]; do sleep 0.05; done; echo finished; exit 3' }, ctx);
    await until(() => tasks.hasForeground(), 'the offer');
    tasks.moveForegroundToBackground();
    expect(String((await call).content)).toContain('(no output so far)');
    writeFileSync(path.join(ws.root, 'go'), '');
    await until(() => tasks.get('bg-1')?.state !== 'running', 'the end');
    expect(tasks.get('bg-1')).toMatchObject({ state: 'exited', exitCode: 3, recentLines: ['finished'] });
    expect(tasks.endedNote()).toMatch(/^\[Background task bg-1 exited with code 3 after \d+s: while/);
  });

  it("the task's saved file starts with the output printed before the move when that was still in memory", async () => {
    const { tasks, ws, ctx } = setup();
    const lines: string[] = [];
    // ~24 KB before the move (under the 32 KB kept in memory), ~30 KB after it.
    const call = run(
      shellTool,
      { command: 'seq 1 5000; while [ ! -f go ]; do sleep 0.05; done; seq 5001 9000' },
      { ...ctx, onUpdate: (text) => lines.push(text) },
    );
    await until(() => lines.join('\n').includes('5000'), 'the first part');
    tasks.moveForegroundToBackground();
    await call;
    writeFileSync(path.join(ws.root, 'go'), '');
    await until(() => tasks.get('bg-1')?.state === 'exited', 'the end');
    const file = tasks.get('bg-1')!.outputFile!;
    expect(readFileSync(file, 'utf8')).toBe(`${Array.from({ length: 9000 }, (_, i) => i + 1).join('\n')}\n`);
    expect(tasks.output('bg-1')).toMatchObject({ totalLines: 9000 });
  });

  it('keeps the last 200 lines for viewing and counts all of them', async () => {
    const { tasks, ctx } = setup();
    await run(shellTool, { command: 'seq 1 1000', run_in_background: true }, ctx);
    await until(() => tasks.get('bg-1')?.state === 'exited', 'the end');
    const view = tasks.output('bg-1')!;
    expect(view.totalLines).toBe(1000);
    expect(view.lines).toHaveLength(200);
    expect(view.lines[0]).toBe('801');
    expect(view.lines.at(-1)).toBe('1000');
    expect(tasks.output('bg-9')).toBeUndefined();
  });
});
