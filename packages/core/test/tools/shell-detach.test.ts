import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
  const ps = execFileSync('ps', ['-eo', 'stat=,pid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .filter((line) => line.includes(marker) && !line.trim().startsWith('Z') && !line.includes('ps -eo'))
    .map((line) => line.trim().replace(/^\S+\s+/, ''));
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
    const pidsBefore = liveProcesses('while [ ! -f go ]');
    expect(pidsBefore.length).toBeGreaterThan(0);

    expect(tasks.moveForegroundToBackground()).toBe(1);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(String(result.content)).toMatch(/^The user moved this command to the background as task bg-1; it is still running\./);
    expect(String(result.content)).toContain('Output so far:\nbefore');
    expect(result.details).toMatchObject({ kind: 'shell', backgroundTask: 'bg-1' });
    expect(tasks.hasForeground()).toBe(false);
    expect(tasks.get('bg-1')).toMatchObject({ state: 'running', recentLines: ['before'] });
    // The same process, not a second run: the loop waiting for `go` is still the one it was.
    expect(liveProcesses('while [ ! -f go ]')).toEqual(pidsBefore);

    // The call's signal ending (the turn going on, or an Esc) no longer reaches the task.
    abort.abort();
    writeFileSync(path.join(ws.root, 'go'), '');
    const later = await run(shellOutputTool, { task_id: 'bg-1', filter: 'after', wait_ms: 10_000 }, { ...ctx, signal: new AbortController().signal });
    expect(String(later.content)).toMatch(/^Task bg-1: running for \d+s\.\nafter$/);
    expect(tasks.output('bg-1')).toMatchObject({ lines: ['before', 'after'], totalLines: 2 });
    expect(liveProcesses(`sleep ${marker}`).length).toBeGreaterThan(0);

    await tasks.kill('bg-1');
    expect(tasks.get('bg-1')?.state).toBe('killed');
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
