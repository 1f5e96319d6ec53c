import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, parseJsonLines, runBeans, scriptedGemini, scriptedOllama, spawnBeans } from './harness.ts';
import { agentFile, callsOf, inputOf, ollamaEnv, releaseAgents, releaseRepo } from './workflow-fixtures.ts';

/**
 * Starts the example with item b's check taking 5 s, and sends `signal` once item b has started
 * (so item a is checkpointed). Resolves with the exit code and stdout; `fast()` ends the slowness.
 */
async function interruptInTheLoop(signal: NodeJS.Signals) {
  const repo = releaseRepo();
  let slow = true;
  const server = await scriptedOllama({ turns: releaseAgents({ slowChecker: () => slow }) });
  const env = { ...repo.env, ...ollamaEnv(server.url) };
  const child = spawnBeans(['workflow', 'run', 'release-notes', '-o', 'stream-json'], { cwd: repo.dir, env });
  let out = '';
  let sent = false;
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (!sent && out.includes('"step":"checker (loop 2/3)"')) sent = child.kill(signal);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (!sent) throw new Error(`the loop never reached item b:\n${out}`);
  return { repo, server, env, code, out, fast: () => (slow = false) };
}

describe('beans workflow', () => {
  it('runs every step kind with progress rising to 100 % along the weighted ranges', async () => {
    const repo = releaseRepo();
    const server = await scriptedOllama({ turns: releaseAgents() });
    const env = { ...repo.env, ...ollamaEnv(server.url) };
    const run = await runBeans(['workflow', 'run', 'release-notes', '--input', 'since=v1.2', '-o', 'stream-json'], { cwd: repo.dir, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseJsonLines(run.stdout);
    const result = lines.at(-1)!;
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'features written\n\nfixed 1 item(s)',
      workflow: 'release-notes',
      status: 'completed',
    });
    expect(callsOf(server.requests).sort()).toEqual(['checker:a', 'checker:b', 'checker:c', 'fixer', 'planner', 'planner', 'writer:features', 'writer:fixes']);
    expect(inputOf(server.requests[0]!)).toEqual({ since: 'v1.2' });

    const progress = lines.filter((line) => line.type === 'system' && line.subtype === 'workflow_progress');
    const percents = progress.map((line) => line.percent as number);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.at(-1)).toBe(100);
    // start + local/100 × (end - start): the planner owns 0-20 %, its 50 % is 10 % overall.
    expect(progress.find((line) => line.message === 'reading history')).toMatchObject({ step: 'planner', percent: 10, step_range: [0, 20], step_percent: 50 });
    // The parallel step owns 20-60 %, one half per branch; the loop 60-85 %, a third per item.
    expect(progress.find((line) => line.step === 'writer (parallel 2/2)')).toMatchObject({ step_range: [40, 60] });
    expect(progress.find((line) => line.step === 'checker (loop 2/3)')).toMatchObject({ step_range: [68.33, 76.67] });
    expect(progress.find((line) => line.step === 'fixer (then)')).toMatchObject({ step_range: [85, 90] });
    // Outside parallel branches (which add up side by side), every line is exactly the formula.
    for (const line of progress.filter((entry) => !String(entry.step).includes('(parallel'))) {
      const [start, end] = line.step_range as number[];
      expect(line.percent).toBeCloseTo(start! + ((line.step_percent as number) / 100) * (end! - start!), 1);
    }

    const runs = await runBeans(['workflow', 'runs', '--json'], { cwd: repo.dir, env });
    expect(JSON.parse(runs.stdout).runs).toEqual([
      expect.objectContaining({ id: result.run_id, workflow: 'release-notes', status: 'completed', percent: 100 }),
    ]);
    const state = JSON.parse(readFileSync(path.join(repo.dir, '.beans/runs', String(result.run_id), 'state.json'), 'utf8'));
    expect(state.artifacts.plan).toEqual({ items: ['a', 'b', 'c'] });
    expect(state.done).toEqual(expect.arrayContaining(['0', '1/b0', '1/b1', '1', '2/i0', '2/i1', '2/i2', '2', '3', '4']));
  });

  it('text output: a progress line per change on stderr, the output artifact on stdout', async () => {
    const repo = releaseRepo();
    const server = await scriptedOllama({ turns: releaseAgents() });
    const run = await runBeans(['workflow', 'run', '.beans/workflows/release-notes.md'], { cwd: repo.dir, env: { ...repo.env, ...ollamaEnv(server.url) } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('features written\n\nfixed 1 item(s)\n');
    expect(run.stderr).toMatch(/^\[##---+\] {2}10% planner 0-20% · \d+\.\ds · reading history$/m);
    expect(run.stderr).toMatch(/^\[#{20}\] 100% done 0-100% · /m);
    expect(run.stderr).toMatch(/beans: run \S+ completed in \d+\.\ds\.\n$/);
  });

  it('survives kill -9 in the middle of the loop; resume finishes without repeating finished calls', async () => {
    const { server, env, repo, out, fast } = await interruptInTheLoop('SIGKILL');
    const runId = String(parseJsonLines(out)[0]!.run_id);
    const before = callsOf(server.requests);
    expect(before).not.toContain('checker:c');

    const listed = await runBeans(['workflow', 'runs', '--json'], { cwd: repo.dir, env });
    expect(JSON.parse(listed.stdout).runs[0]).toMatchObject({ id: runId, status: 'interrupted' });
    fast();
    const resumed = await runBeans(['workflow', 'resume', runId.slice(0, 18), '-o', 'json'], { cwd: repo.dir, env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ subtype: 'success', run_id: runId, result: 'features written\n\nfixed 1 item(s)' });
    const after = callsOf(server.requests).slice(before.length);
    // Only the unfinished work ran again: item b (cut off), item c, the fixer.
    expect(after.sort()).toEqual(['checker:b', 'checker:c', 'fixer']);
    expect(callsOf(server.requests).filter((call) => call === 'checker:a')).toHaveLength(1);
  });

  it('retries a step that fails twice, then succeeds', async () => {
    const repo = makeTempRepo({
      'flaky.md':
        '---\nname: flaky\ndurability:\n  retry: { maxAttempts: 3, backoffMs: 100, backoffMultiplier: 2 }\nsteps:\n  - call: ./worker.md\n    store: answer\n---\n',
      'worker.md': agentFile('worker', 'worker'),
    });
    const server = await scriptedOllama({
      turns: [{ text: 'done at last' }],
      faults: [
        { status: 400, body: { error: 'bad request' } },
        { status: 400, body: { error: 'bad request' } },
      ],
    });
    const run = await runBeans(['workflow', 'run', 'flaky.md'], { cwd: repo.dir, env: { ...repo.env, ...ollamaEnv(server.url) } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('done at last\n');
    expect(server.requests.filter((request) => request.kind === 'chat').map((request) => request.fault ?? 'ok')).toEqual([400, 400, 'ok']);
    expect(run.stderr).toMatch(/attempt 1 failed .*retrying in 100 ms/);
    expect(run.stderr).toMatch(/attempt 2 failed .*retrying in 200 ms/);
    const chats = server.requests.filter((request) => request.kind === 'chat');
    expect(chats[2]!.time - chats[1]!.time).toBeGreaterThanOrEqual(190);
  });

  it('stops at maxDurationMs with exit 4 and a resumable run', async () => {
    const repo = makeTempRepo({
      'slow.md':
        '---\nname: slow\ndurability:\n  maxDurationMs: 800\nsteps:\n  - transform: "\'quick\'"\n    store: first\n  - call: ./worker.md\n    store: answer\n---\n',
      'worker.md': agentFile('worker', 'worker'),
    });
    const server = await scriptedOllama({ turns: [{ text: ['slow', ' answer'], chunkDelayMs: 5000 }] });
    const env = { ...repo.env, ...ollamaEnv(server.url) };
    const run = await runBeans(['workflow', 'run', 'slow.md', '-o', 'json'], { cwd: repo.dir, env });
    expect(run.code).toBe(4);
    expect(run.durationMs).toBeLessThan(4000);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ subtype: 'error_max_duration', is_error: true, status: 'timed_out' });
    expect(result.result).toMatch(/maxDurationMs of 800 ms/);
    const state = JSON.parse(readFileSync(path.join(repo.dir, '.beans/runs', result.run_id, 'state.json'), 'utf8'));
    expect(state).toMatchObject({ status: 'timed_out', done: ['0'], artifacts: { first: 'quick' } });
  });

  it('reports an invalid workflow with file and line before anything runs', async () => {
    const repo = makeTempRepo({
      '.beans/workflows/broken.md': '---\nname: broken\nsteps:\n  - call: nobody-here\n  - loop: { over: "${items" }\n    steps: [ { transform: "1" } ]\n---\n',
    });
    const server = await scriptedOllama({ turns: [{ text: 'never' }] });
    const run = await runBeans(['workflow', 'run', 'broken'], { cwd: repo.dir, env: { ...repo.env, ...ollamaEnv(server.url) } });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${path.join(repo.dir, '.beans/workflows/broken.md')}:5: `);
    expect(run.stderr).toContain('never closed');
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
    expect(existsSync(path.join(repo.dir, '.beans/runs'))).toBe(false);

    // An unknown agent is found before the run starts, with its line.
    repo.write('.beans/workflows/broken.md', '---\nname: broken\nsteps:\n  - transform: "1"\n  - call: nobody-here\n---\n');
    const unknown = await runBeans(['workflow', 'run', 'broken'], { cwd: repo.dir, env: { ...repo.env, ...ollamaEnv(server.url) } });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/broken\.md:5: there is no agent "nobody-here"/);
    expect(existsSync(path.join(repo.dir, '.beans/runs'))).toBe(false);
  });

  it('lists workflows of the workspace and of plugins', async () => {
    const repo = releaseRepo();
    repo.write('.beans/plugins/team/workflows/triage.md', '---\nname: triage\ndescription: Sort new issues\nsteps:\n  - transform: "1"\n---\n');
    const run = await runBeans(['workflow', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(0);
    const names = JSON.parse(run.stdout).workflows.map((workflow: { qualifiedName: string; source: string }) => `${workflow.qualifiedName} ${workflow.source}`);
    expect(names).toEqual(expect.arrayContaining(['release-notes workspace', 'team:triage plugin:team']));
  });

  it('lists a WORKFLOW.md at the repository root, also when run from a subfolder, and runs it by name', async () => {
    const repo = makeTempRepo({
      'WORKFLOW.md': '---\nname: root-flow\ndescription: The repository workflow\nsteps:\n  - transform: "\'root ran\'"\n    store: out\n---\n',
      'src/x.txt': 'x\n',
    });
    const run = await runBeans(['workflow', 'list', '--json'], { cwd: path.join(repo.dir, 'src'), env: repo.env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).workflows).toEqual([
      { name: 'root-flow', qualifiedName: 'root-flow', description: 'The repository workflow', path: path.join(repo.dir, 'WORKFLOW.md'), source: 'workspace' },
    ]);
    const text = await runBeans(['workflow', 'list'], { cwd: repo.dir, env: repo.env });
    expect(text.stdout).toBe('root-flow  The repository workflow  (WORKFLOW.md)\n');
    const server = await scriptedOllama({ turns: [] });
    const ran = await runBeans(['workflow', 'run', 'root-flow'], { cwd: path.join(repo.dir, 'src'), env: { ...repo.env, ...ollamaEnv(server.url) } });
    expect(ran.stderr).not.toMatch(/no workflow/i);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('root ran');
  });

  it('Ctrl+C stops the run with exit 130 and leaves it resumable', async () => {
    const { server, env, repo, code, out, fast } = await interruptInTheLoop('SIGINT');
    expect(code).toBe(130);
    const result = parseJsonLines(out).at(-1)!;
    expect(result).toMatchObject({ type: 'result', subtype: 'error_interrupted', status: 'interrupted' });
    fast();
    const resumed = await runBeans(['workflow', 'resume', String(result.run_id)], { cwd: repo.dir, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('features written\n\nfixed 1 item(s)\n');
    expect(callsOf(server.requests).filter((call) => call === 'checker:a' || call.startsWith('writer'))).toHaveLength(3);
  });

  it('runs on Gemini too, where report_progress arrives as a functionCall', async () => {
    const repo = makeTempRepo({
      'one.md':
        '---\nname: one\ninputs:\n  topic: {}\nsteps:\n  - call: ./agents/planner.md\n    store: plan\n  - transform: "$join(plan.items, \', \')"\n    store: list\n---\n',
      'agents/planner.md': agentFile('planner', 'planner'),
    });
    const server = await scriptedGemini({
      turns: (_request, n) => (n === 0 ? { toolCalls: [{ name: 'report_progress', args: { percent: 40 } }] } : { text: '{"items": ["x", "y"]}' }),
    });
    const env = { ...repo.env, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: server.url, BEANS_MODEL: 'gemini-2.5-flash' };
    const missing = await runBeans(['workflow', 'run', 'one.md'], { cwd: repo.dir, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs --input topic=...');
    const run = await runBeans(['workflow', 'run', 'one.md', '--input', 'topic=beans', '-o', 'stream-json'], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    const lines = parseJsonLines(run.stdout);
    // Two steps of weight 1: the planner owns 0-50 %, its 40 % is 20 % overall.
    expect(lines.find((line) => line.step_percent === 40)).toMatchObject({ step: 'planner', percent: 20, step_range: [0, 50] });
    expect(lines.at(-1)).toMatchObject({ subtype: 'success', result: 'x, y' });
  });
});
