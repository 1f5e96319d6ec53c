import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellTool } from '../../src/tools/shell.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

/** Live (non-zombie) processes whose command line contains `marker`. */
function liveProcesses(marker: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return ps.split('\n').filter((line) => line.includes(marker) && !line.trim().startsWith('Z') && !line.includes('ps -eo'));
}

describe('shell', () => {
  it('runs in the workspace root and returns the output', async () => {
    const ws = makeWorkspace({ 'marker.txt': '' });
    const result = await run(shellTool, { command: 'pwd && ls' }, makeContext(ws));
    expect(result).toEqual({ content: `${ws.root}\nmarker.txt`, details: { kind: 'shell', exitCode: 0, timedOut: false } });
  });

  it('reports a non-zero exit as an error with the exit code, stdout and stderr', async () => {
    const ws = makeWorkspace();
    const result = await run(shellTool, { command: 'echo to-out; echo to-err >&2; exit 3' }, makeContext(ws));
    expect(result.isError).toBe(true);
    expect(result.content).toBe('Exit code 3.\nto-out\nto-err');
    expect(result.details).toEqual({ kind: 'shell', exitCode: 3, timedOut: false });
  });

  it('gives the command no stdin, so a prompt cannot hang it', async () => {
    const ws = makeWorkspace();
    const started = Date.now();
    const result = await run(shellTool, { command: 'read answer; echo "got:[$answer]"' }, makeContext(ws));
    expect(result.content).toContain('got:[]');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops a command at its timeout, with every process it started', async () => {
    const ws = makeWorkspace();
    const marker = `${process.pid}1`;
    const started = Date.now();
    const result = await run(shellTool, { command: `echo begun; sleep ${marker} & sleep ${marker} & wait`, timeout_ms: 500 }, makeContext(ws));
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result.isError).toBe(true);
    expect(result.details).toEqual({ kind: 'shell', exitCode: null, timedOut: true });
    expect(result.content).toContain('Timed out after 0.5s');
    expect(result.content).toContain('timeout_ms');
    expect(result.content).toContain('begun');
    expect(liveProcesses(`sleep ${marker}`)).toEqual([]);
  });

  it('on abort mid-command kills the whole process tree and leaves no orphan', async () => {
    const ws = makeWorkspace();
    const marker = `${process.pid}2`;
    const controller = new AbortController();
    const updates: string[] = [];
    const pending = run(
      shellTool,
      { command: `sleep ${marker} & bash -c "sleep ${marker}; true" & echo ready; wait` },
      makeContext(ws, { signal: controller.signal, onUpdate: (text) => updates.push(text) }),
    );
    await expect.poll(() => updates.join('\n'), { timeout: 5_000 }).toContain('ready');
    expect(liveProcesses(`sleep ${marker}`).length).toBeGreaterThanOrEqual(2);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(liveProcesses(`sleep ${marker}`)).toEqual([]);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const ws = makeWorkspace();
    const marker = `${process.pid}3`;
    const result = await run(shellTool, { command: `trap '' TERM; sleep ${marker} & wait; wait`, timeout_ms: 300 }, makeContext(ws));
    expect(result.details).toEqual({ kind: 'shell', exitCode: null, timedOut: true });
    expect(liveProcesses(`sleep ${marker}`)).toEqual([]);
  });

  it('keeps the head and tail of 10 MB of output and says how many lines were cut', async () => {
    const ws = makeWorkspace();
    const started = Date.now();
    const result = await run(shellTool, { command: "seq 1 1000000 | sed 's/$/ padding to make ten megabytes/'" }, makeContext(ws));
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.isError).toBeFalsy();
    expect(result.content.length).toBeLessThan(40_000);
    expect(result.content.startsWith('1 padding to make ten megabytes\n2 padding')).toBe(true);
    expect(result.content.endsWith('1000000 padding to make ten megabytes')).toBe(true);
    const cut = /… \[([\d,]+) lines cut\] …/.exec(result.content);
    expect(cut).not.toBeNull();
    const shownLines = result.content.split('\n').length - 1;
    expect(Number(cut![1]!.replace(/,/g, '')) + shownLines).toBe(1_000_000);
  });

  it('cuts a single enormous line instead of keeping it whole', async () => {
    const ws = makeWorkspace();
    const result = await run(shellTool, { command: "head -c 3000000 /dev/zero | tr '\\0' 'a'" }, makeContext(ws));
    expect(result.content.length).toBeLessThan(3_000);
    expect(result.content).toContain('… [2,998,000 more characters]');
  });

  it('streams output lines to onUpdate while the command runs', async () => {
    const ws = makeWorkspace();
    const seen: Array<{ text: string; at: number }> = [];
    const started = Date.now();
    await run(
      shellTool,
      { command: 'echo first; sleep 0.6; echo second' },
      makeContext(ws, { onUpdate: (text) => seen.push({ text, at: Date.now() - started }) }),
    );
    expect(seen.map((s) => s.text).join('\n')).toBe('first\nsecond');
    expect(seen[0]!.text).toBe('first');
    expect(seen[0]!.at).toBeLessThan(500);
  });

  it('strips colour codes and keeps only the final state of a redrawn progress line', async () => {
    const ws = makeWorkspace();
    const result = await run(shellTool, { command: "printf '\\033[31mred\\033[0m\\n10%%\\r50%%\\r100%%\\n'" }, makeContext(ws));
    expect(result.content).toBe('red\n100%');
  });

  it('returns when the command exits even if a background job keeps the output open', async () => {
    const ws = makeWorkspace();
    const started = Date.now();
    const result = await run(shellTool, { command: '(sleep 2; echo late) & echo now' }, makeContext(ws));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(result.content).toContain('now');
    expect(result.content).toContain('background process kept the output open');
  });
});
