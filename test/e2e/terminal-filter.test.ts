// The terminal filter everywhere (issue 43 item 8): what the model or a server chose must not drive
// the user's terminal from a one-shot run either. `script` gives beans a real terminal.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BEANS_BIN, makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

// OSC 52 (clipboard), OSC 0 (title), clear screen, an 8-bit CSI, and a CR that would overwrite the line.
const HOSTILE = 'safe \u001b]52;c;cHduZWQ=\u0007clip \u001b]0;pwned\u0007title \u001b[2J\u001b[Hclear \u009b31mc1 visible\rHIDDEN';

/** Runs `beans args` on a pseudo-terminal (stdout and stderr both), returning everything it wrote. */
function onTerminal(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const quoted = [BEANS_BIN, ...args].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', quoted, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit: ${out}`));
    }, 20_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    child.stdin.end();
  });
}

describe.skipIf(!hasScript)('escape codes on a terminal', () => {
  it('one-shot -o text strips what the chat strips from the answer', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: HOSTILE }] });
    const out = await onTerminal(['-p', 'hi', '-o', 'text'], repo.dir, { ...repo.env, OLLAMA_HOST: server.url });
    expect(out).toContain('safe clip title clear c1 visibleHIDDEN');
    expect(out).not.toMatch(/\u001b|\u009b/);
    // The terminal turns each newline into CR LF; no other CR is left to overwrite a line.
    expect(out.replace(/\r\n/g, '')).not.toContain('\r');
  });

  it('shows a server-chosen error text on stderr with its control characters escaped', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: 'x' }], faults: [{ status: 400, always: true, body: { error: HOSTILE } }] });
    const out = await onTerminal(['-p', 'hi'], repo.dir, { ...repo.env, OLLAMA_HOST: server.url });
    expect(out).toContain('beans: ');
    expect(out).toContain('\\x1b]52;c;cHduZWQ=\\x07clip');
    expect(out).toContain('\\x9b31mc1');
    expect(out).not.toMatch(/\u001b|\u009b/);
    expect(out.replace(/\r\n/g, '')).not.toContain('\r');
  });

  it('leaves the answer as it is when stdout is not a terminal (scripts get the bytes)', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({ turns: [{ text: HOSTILE }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.stdout).toBe(`${HOSTILE}\n`);
  });
});
