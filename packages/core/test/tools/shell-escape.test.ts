import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pidNamespacesAvailable } from '../../src/tools/pid-namespace.js';
import { shellTool } from '../../src/tools/shell.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

/** Live (non-zombie) processes whose command line contains `marker`. */
function liveProcesses(marker: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(marker) && !line.trim().startsWith('Z') && !line.includes('ps -eo'));
}

/**
 * What is left after up to a second: the namespace ends by SIGKILL to its holder and the kernel then
 * kills the rest, which a loaded machine was seen to finish just after the call returned.
 */
async function leftBehind(marker: string): Promise<string[]> {
  for (let i = 0; i < 20 && liveProcesses(marker).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return liveProcesses(marker);
}

/**
 * Issue 43 item 9: a child that clears its environment (so the run tag cannot find it) and
 * double-forks (so it leaves the process group) a sleeper. In a PID namespace of its own the command
 * cannot leave anything behind: not when it ends, times out or is aborted.
 */
const escape = (marker: string) => `env -i /bin/sh -c '(setsid sleep ${marker} </dev/null >/dev/null 2>&1 &) ; true'`;

describe.skipIf(!pidNamespacesAvailable())('shell commands in a PID namespace of their own', () => {
  it('leave no process behind when the command ends, even one that cleared its environment and double-forked', async () => {
    const ws = makeWorkspace();
    const marker = `7${Date.now() % 100000}1`;
    const result = await run(shellTool, { command: `${escape(marker)}; echo started` }, makeContext(ws));
    expect(result.content).toBe('started');
    expect(await leftBehind(`sleep ${marker}`)).toEqual([]);
  });

  it('nor when it times out', async () => {
    const ws = makeWorkspace();
    const marker = `7${Date.now() % 100000}2`;
    const result = await run(shellTool, { command: `${escape(marker)}; sleep 30`, timeout_ms: 500 }, makeContext(ws));
    expect(result.details).toMatchObject({ timedOut: true });
    expect(await leftBehind(`sleep ${marker}`)).toEqual([]);
  });

  it('nor when it is aborted', async () => {
    const ws = makeWorkspace();
    const marker = `7${Date.now() % 100000}3`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 400);
    await run(shellTool, { command: `${escape(marker)}; sleep 30` }, makeContext(ws, { signal: controller.signal })).catch(() => undefined);
    expect(await leftBehind(`sleep ${marker}`)).toEqual([]);
  });

  it('still reports, and stops, background jobs left by a command that kept its environment', async () => {
    const ws = makeWorkspace();
    const marker = `7${Date.now() % 100000}4`;
    const result = await run(shellTool, { command: `sleep ${marker} & echo started` }, makeContext(ws));
    expect(result.content).toMatch(/^started\n[^]*\[Stopped 1 process the command left running/);
    expect(await leftBehind(`sleep ${marker}`)).toEqual([]);
  });

  it('sees its own processes only, with the workspace as its folder', async () => {
    const ws = makeWorkspace();
    const result = await run(shellTool, { command: 'pwd; ps -e -o pid= | wc -l' }, makeContext(ws));
    const [pwd, count] = result.content.split('\n');
    expect(pwd).toBe(ws.root);
    expect(Number(count)).toBeLessThan(8);
  });
});
