import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { beansToolNameOf, claudeToolName, fromClaudeInput, toClaudeInput } from '../../src/claude/vocabulary.js';
import { BackgroundTasks } from '../../src/tools/background-tasks.js';
import { killShellTool } from '../../src/tools/kill-shell.js';
import { shellOutputTool } from '../../src/tools/shell-output.js';
import { shellTool } from '../../src/tools/shell.js';
import { makeContext, makeOutsideDir, makeWorkspace, run } from './helpers.js';

/** Live (non-zombie) processes whose command line contains `marker`. */
function liveProcesses(marker: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(marker) && !line.trim().startsWith('Z') && !line.includes('ps -eo'));
}

const registries: BackgroundTasks[] = [];
afterEach(async () => {
  for (const tasks of registries.splice(0)) await tasks.killAll();
});

function setup(maxTasks?: number) {
  const tasks = new BackgroundTasks({ maxTasks });
  registries.push(tasks);
  const ws = makeWorkspace();
  const ctx = { ...makeContext(ws), backgroundTasks: tasks, outputDir: makeOutsideDir() };
  return { tasks, ws, ctx };
}

const text = (result: { content: unknown }) => String(result.content);

describe('background shell commands', () => {
  it('starts at once, reads new output since the last read, filters on RE2, and kills the whole tree', async () => {
    const { ctx, tasks } = setup();
    const marker = `${process.pid}7`;
    const started = Date.now();
    const result = await run(
      shellTool,
      { command: `sleep ${marker} & for i in 1 2 3; do echo "line $i"; done; echo ready; sleep ${marker}`, run_in_background: true },
      ctx,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(text(result)).toMatch(/task bg-1/);

    const first = await run(shellOutputTool, { task_id: 'bg-1', filter: 'ready', wait_ms: 5_000 }, ctx);
    expect(text(first)).toMatch(/^Task bg-1: running for \d+s\.\nready\n\[3 lines did not match the filter\.\]$/);
    const again = await run(shellOutputTool, { task_id: 'bg-1' }, ctx);
    expect(text(again)).toContain('(no new output)');
    expect(liveProcesses(`sleep ${marker}`)).toHaveLength(2);

    const killed = await run(killShellTool, { task_id: 'bg-1' }, ctx);
    expect(text(killed)).toMatch(/^Task bg-1: was killed after \d+s\.$/);
    expect(liveProcesses(`sleep ${marker}`)).toEqual([]);
    expect(tasks.get('bg-1')?.state).toBe('killed');
    expect(tasks.contextNote()).toBeUndefined(); // kill_shell's answer told the model; no second note
  });

  it('reports the exit code and tells the model once that it ended', async () => {
    const { ctx, tasks } = setup();
    await run(shellTool, { command: 'echo bye; exit 4', run_in_background: true }, ctx);
    await run(shellTool, { command: 'echo again; exit 5', run_in_background: true }, ctx);
    for (let i = 0; i < 200 && tasks.runningCount() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(tasks.get('bg-1')).toMatchObject({ state: 'exited', exitCode: 4 });
    // The note after the next tool call (the session's seam) says it once...
    expect(tasks.endedNote()).toMatch(/^\[Background task bg-1 exited with code 4 after \d+s: echo bye; exit 4\]\n\[Background task bg-2 exited with code 5/);
    expect(tasks.endedNote()).toBeUndefined();
    expect(tasks.contextNote()).toBeUndefined();
    // ...and a read still shows the output and the end.
    const read = text(await run(shellOutputTool, { task_id: 'bg-1' }, ctx));
    expect(read).toMatch(/^Task bg-1: exited with code 4 after \d+s\.\nbye$/);
    await run(shellTool, { command: 'exit 6', run_in_background: true }, ctx);
    for (let i = 0; i < 200 && tasks.runningCount() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(tasks.contextNote()).toMatch(/- bg-3 exited with code 6: exit 6$/); // before the next user turn, if no call told it
  });

  it('refuses a task past shell.maxBackgroundTasks, and unknown ids and bad filters clearly', async () => {
    const { ctx } = setup(1);
    await run(shellTool, { command: 'sleep 30', run_in_background: true }, ctx);
    const second = await run(shellTool, { command: 'sleep 30', run_in_background: true }, ctx);
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(/limit is 1, setting shell.maxBackgroundTasks/);
    expect(text(await run(shellOutputTool, { task_id: 'bg-9' }, ctx))).toBe('There is no background task "bg-9"; the tasks are bg-1.');
    const bad = await run(shellOutputTool, { task_id: 'bg-1', filter: '(?=x)' }, ctx);
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/not valid RE2/);
  });

  it('keeps a flood within its buffer and spills the whole output to a file', async () => {
    const { ctx } = setup();
    // ~20 MB of numbered lines.
    await run(
      shellTool,
      { command: `node -e 'let s="";for(let i=0;i<400000;i++)s+="flood line "+i+" ".padEnd(40,"x")+"\\n";process.stdout.write(s)'`, run_in_background: true },
      ctx,
    );
    const reads: string[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !/exited/.test(reads.at(-1) ?? '')) reads.push(text(await run(shellOutputTool, { task_id: 'bg-1', wait_ms: 200 }, ctx)));
    const all = reads.join('\n');
    expect(reads.at(-1)).toMatch(/exited with code 0/);
    for (const read of reads) expect(read.length).toBeLessThan(25_000);
    expect(all).toMatch(/lines cut\] …/);
    expect(all).toContain('flood line 399999');
    const file = /saved in (\S+): read more/.exec(all)?.[1];
    expect(file).toBeDefined();
    expect(statSync(file!).size).toBeGreaterThan(19_000_000);
  });

  it('Claude Code names map both ways: Bash run_in_background, TaskOutput/BashOutput, TaskStop/KillShell', () => {
    expect(claudeToolName('shell_output')).toBe('TaskOutput');
    expect(claudeToolName('kill_shell')).toBe('TaskStop');
    for (const name of ['TaskOutput', 'BashOutput', 'bashoutput']) expect(beansToolNameOf(name)).toBe('shell_output');
    for (const name of ['TaskStop', 'KillShell']) expect(beansToolNameOf(name)).toBe('kill_shell');
    expect(fromClaudeInput('shell', { command: 'npm run dev', run_in_background: true, description: 'dev server' })).toEqual({
      command: 'npm run dev',
      run_in_background: true,
    });
    expect(fromClaudeInput('shell_output', { task_id: 'bg-1', block: true, timeout: 5000 })).toEqual({ task_id: 'bg-1', wait_ms: 5000 });
    expect(fromClaudeInput('shell_output', { bash_id: 'bg-2', filter: 'err' })).toEqual({ task_id: 'bg-2', filter: 'err' });
    expect(fromClaudeInput('kill_shell', { shell_id: 'bg-3' })).toEqual({ task_id: 'bg-3' });
    expect(toClaudeInput('shell_output', { task_id: 'bg-1', wait_ms: 10 }, '/w')).toEqual({ task_id: 'bg-1', timeout: 10 });
  });
});
