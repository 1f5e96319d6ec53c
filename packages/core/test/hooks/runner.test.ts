import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hook, recorded, runnerFor, script, tempDir } from './helpers.js';

describe('PreToolUse hooks', () => {
  it('a python hook denies rm -rf through hookSpecificOutput, and lets other commands run', async () => {
    const cwd = tempDir();
    const runner = runnerFor([hook('PreToolUse', `python3 ${script('deny-rm.py')}`, { matcher: 'Bash' })], cwd, { permissionMode: () => 'bypassPermissions' });
    const denied = await runner.preToolUse({ id: 'c1', tool: 'shell', input: { command: 'rm -rf build' } });
    expect(denied.decision).toBe('deny');
    expect(denied.reason).toBe('rm -rf is not allowed in this repository');
    const allowed = await runner.preToolUse({ id: 'c2', tool: 'shell', input: { command: 'ls' } });
    expect(allowed.decision).toBeUndefined();
    expect(allowed.userMessages).toEqual([]);
  });

  it('exit 2 blocks the call with stderr as the reason for the model', async () => {
    const cwd = tempDir();
    const runner = runnerFor([hook('PreToolUse', `bash ${script('exit2.sh')}`, { matcher: 'Write|Edit' })], cwd);
    const outcome = await runner.preToolUse({ id: 'c1', tool: 'write_file', input: { path: 'generated/x.ts', content: 'x' } });
    expect(outcome).toMatchObject({ decision: 'deny', reason: 'Writes to generated/ are forbidden; edit src/ instead.' });
    // The matcher is a regex over either vocabulary: a read does not match Write|Edit.
    expect((await runner.preToolUse({ id: 'c2', tool: 'read_file', input: { path: 'a' } })).decision).toBeUndefined();
  });

  it('updatedInput in Claude Code field names comes back as Beans parameters, with allow', async () => {
    const cwd = tempDir();
    const runner = runnerFor([hook('PreToolUse', `python3 ${script('rewrite-command.py')}`, { matcher: 'shell' })], cwd);
    const outcome = await runner.preToolUse({ id: 'c1', tool: 'shell', input: { command: 'make deploy' } });
    expect(outcome.decision).toBe('allow');
    expect(outcome.updatedInput).toEqual({ command: 'echo dry-run: make deploy', timeout_ms: 5000 });
  });

  it('matchers match either vocabulary; * and empty match all; a non-matching hook does not run', async () => {
    const cwd = tempDir();
    const record = path.join(cwd, 'rec.jsonl');
    const rec = `bash ${script('record-stdin.sh')}`;
    const hooks = [
      hook('PreToolUse', `${rec} # a`, { matcher: 'Bash' }),
      hook('PreToolUse', `${rec} # b`, { matcher: 'shell' }),
      hook('PreToolUse', `${rec} # c`, { matcher: '*' }),
      hook('PreToolUse', `${rec} # d`),
      hook('PreToolUse', `${rec} # e`, { matcher: 'Read' }),
    ];
    await runnerFor(hooks, cwd, { env: { ...process.env, HOOK_RECORD: record } }).preToolUse({ id: 'c1', tool: 'shell', input: { command: 'ls' } });
    expect(recorded(record)).toHaveLength(4);
  });

  it('identical commands of one event run once, different ones in parallel', async () => {
    const cwd = tempDir();
    const record = path.join(cwd, 'rec.jsonl');
    const env = { ...process.env, HOOK_RECORD: record };
    const same = `bash ${script('record-stdin.sh')}`;
    const slow = (n: number) => hook('PreToolUse', `sleep 1; bash ${script('record-stdin.sh')} # ${n}`);
    const runner = runnerFor(
      [
        hook('PreToolUse', same, { matcher: 'Bash' }),
        hook('PreToolUse', same, { matcher: '*', source: { kind: 'plugin', plugin: 'p', root: '/p', file: '/p/hooks/hooks.json' } }),
        slow(1),
        slow(2),
        slow(3),
      ],
      cwd,
      { env },
    );
    const started = performance.now();
    await runner.preToolUse({ id: 'c1', tool: 'shell', input: { command: 'ls' } });
    expect(performance.now() - started).toBeLessThan(2500);
    expect(recorded(record)).toHaveLength(4);
  });

  it('continue: false stops the run with its stopReason; systemMessage is for the user', async () => {
    const cwd = tempDir();
    const json = JSON.stringify({ continue: false, stopReason: 'Maintenance window', systemMessage: 'hooks say hi' });
    const outcome = await runnerFor([hook('PreToolUse', `cat >/dev/null; echo '${json}'`)], cwd).preToolUse({
      id: 'c1',
      tool: 'glob',
      input: { pattern: '*' },
    });
    expect(outcome.stop).toEqual({ reason: 'Maintenance window' });
    expect(outcome.userMessages).toEqual(['hooks say hi']);
  });
});

describe('PostToolUse hooks', () => {
  it("matcher Write|Edit gets Claude Code's documented payload, field by field", async () => {
    const cwd = tempDir();
    const record = path.join(cwd, 'rec.jsonl');
    const runner = runnerFor([hook('PostToolUse', `bash ${script('record-stdin.sh')}`, { matcher: 'Write|Edit' })], cwd, {
      env: { ...process.env, HOOK_RECORD: record },
      permissionMode: () => 'acceptEdits',
    });
    await runner.postToolUse({ id: 'toolu_01', tool: 'write_file', input: { path: 'src/a.txt', content: 'file content' } }, { content: 'Wrote src/a.txt' });
    await runner.postToolUse(
      { id: 'toolu_02', tool: 'edit_file', input: { path: 'src/a.txt', old_string: 'file', new_string: 'new', replace_all: true } },
      { content: 'Edited' },
    );
    await runner.postToolUse({ id: 'toolu_03', tool: 'read_file', input: { path: 'src/a.txt' } }, { content: '1: new content' });
    const [write, edit, ...rest] = recorded(record);
    expect(rest).toEqual([]);
    const file = path.join(cwd, 'src', 'a.txt');
    expect(Object.keys(write).sort()).toEqual([
      'cwd',
      'hook_event_name',
      'permission_mode',
      'session_id',
      'tool_input',
      'tool_name',
      'tool_response',
      'tool_use_id',
      'transcript_path',
    ]);
    expect(write.session_id).toBe('sess-1');
    expect(write.transcript_path).toBe(path.join(cwd, 'sess-1.jsonl'));
    expect(write.cwd).toBe(cwd);
    expect(write.permission_mode).toBe('acceptEdits');
    expect(write.hook_event_name).toBe('PostToolUse');
    expect(write.tool_name).toBe('Write');
    expect(write.tool_input).toEqual({ file_path: file, content: 'file content' });
    // Claude Code's FileWriteOutput (sdk-tools.d.ts), with the `success` its hooks documentation shows.
    expect(write.tool_response).toMatchObject({ type: 'create', filePath: file, content: 'file content', success: true });
    expect(write.tool_use_id).toBe('toolu_01');
    expect(edit.tool_name).toBe('Edit');
    expect(edit.tool_input).toEqual({ file_path: file, old_string: 'file', new_string: 'new', replace_all: true });
    expect(edit.tool_response).toMatchObject({ filePath: file, success: true });
  });

  it('exit 2 and decision block become feedback for the model; additionalContext too', async () => {
    const cwd = tempDir();
    const block = JSON.stringify({
      decision: 'block',
      reason: 'lint failed: missing semicolon',
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'style guide: use semicolons' },
    });
    const runner = runnerFor([hook('PostToolUse', `bash ${script('exit2.sh')}`), hook('PostToolUse', `cat >/dev/null; echo '${block}'`)], cwd);
    const outcome = await runner.postToolUse({ id: 'c1', tool: 'write_file', input: { path: 'a', content: '' } }, { content: 'ok' });
    expect(outcome.feedback?.split('\n').sort()).toEqual(['Writes to generated/ are forbidden; edit src/ instead.', 'lint failed: missing semicolon']);
    expect(outcome.additionalContext).toBe('style guide: use semicolons');
  });
});

describe('prompt, stop and session hooks', () => {
  it('UserPromptSubmit stdout on exit 0 becomes context; exit 2 blocks the prompt for the user', async () => {
    const cwd = tempDir();
    const context = await runnerFor([hook('UserPromptSubmit', `bash ${script('prompt-context.sh')}`)], cwd).userPromptSubmit('fix the bug');
    expect(context.context).toBe('Ticket: BEANS-42 (prompt was: fix the bug)');
    expect(context.blocked).toBeUndefined();
    const blocked = await runnerFor([hook('UserPromptSubmit', `bash ${script('exit2.sh')}`)], cwd).userPromptSubmit('x');
    expect(blocked.blocked).toEqual({ reason: 'Writes to generated/ are forbidden; edit src/ instead.' });
  });

  it('a Stop hook blocks once: the agent continues, and the next stop (stop_hook_active) is allowed', async () => {
    const cwd = tempDir();
    const record = path.join(cwd, 'rec.jsonl');
    const runner = runnerFor(
      [hook('Stop', `payload=$(cat); printf '%s\\n' "$payload" >> ${record}; printf '%s' "$payload" | python3 ${script('stop-once.py')}`)],
      cwd,
    );
    const first = await runner.stop();
    expect(first.continueWith).toBe('Run the test suite before you finish.');
    const second = await runner.stop();
    expect(second.continueWith).toBeUndefined();
    const payloads = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(payloads.map((p) => [p.hook_event_name, p.stop_hook_active])).toEqual([
      ['Stop', false],
      ['Stop', true],
    ]);
    // A new prompt starts over.
    await runner.userPromptSubmit('again');
    expect((await runner.stop()).continueWith).toBeDefined();
  });

  it('SessionStart sends its source and its stdout is context; the other events carry their fields', async () => {
    const cwd = tempDir();
    const record = path.join(cwd, 'rec.jsonl');
    const rec = `bash ${script('record-stdin.sh')}`;
    const events = ['SessionStart', 'SessionEnd', 'PreCompact', 'Notification', 'SubagentStop'] as const;
    const runner = runnerFor([...events.map((event) => hook(event, rec)), hook('SessionStart', 'echo remember the ticket')], cwd, {
      env: { ...process.env, HOOK_RECORD: record },
    });
    expect((await runner.sessionStart('resume')).context).toBe('remember the ticket');
    await runner.sessionEnd('prompt_input_exit');
    await runner.preCompact('manual', 'keep the API notes');
    await runner.notification('Beans needs your permission to use shell');
    await runner.subagentStop();
    const got = recorded(record).map(({ session_id, transcript_path, cwd: _cwd, permission_mode, ...rest }) => rest);
    expect(got).toEqual([
      { hook_event_name: 'SessionStart', source: 'resume' },
      { hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' },
      { hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'keep the API notes' },
      { hook_event_name: 'Notification', message: 'Beans needs your permission to use shell' },
      { hook_event_name: 'SubagentStop', stop_hook_active: false },
    ]);
  });

  it('SessionStart and PreCompact matchers select the source and the trigger', async () => {
    const cwd = tempDir();
    const runner = runnerFor(
      [
        hook('SessionStart', 'echo resumed', { matcher: 'resume|compact' }),
        hook('SessionStart', 'echo always', { matcher: '*' }),
        hook('PreCompact', 'echo auto >&2; exit 2', { matcher: 'auto' }),
      ],
      cwd,
    );
    expect((await runner.sessionStart('startup')).context).toBe('always');
    expect((await runner.sessionStart('resume')).context?.split('\n').sort()).toEqual(['always', 'resumed']);
    expect((await runner.preCompact('manual')).userMessages).toEqual([]);
    expect((await runner.preCompact('auto')).userMessages).toEqual(['auto']);
  });

  it('hooks run in the workspace root with CLAUDE_PROJECT_DIR and BEANS_PROJECT_DIR', async () => {
    const cwd = tempDir();
    const outcome = await runnerFor([hook('SessionStart', 'echo "$(pwd)|$CLAUDE_PROJECT_DIR|$BEANS_PROJECT_DIR"')], cwd).sessionStart('startup');
    expect(outcome.context).toBe(`${cwd}|${cwd}|${cwd}`);
  });
});

describe('hooks that misbehave', () => {
  it('a hook sleeping past its timeout is killed with its children; Beans goes on', async () => {
    const cwd = tempDir();
    const pidFile = path.join(cwd, 'child.pid');
    const runner = runnerFor([hook('PreToolUse', `bash ${script('sleep.sh')}`, { timeout: 1 }), hook('PreToolUse', `python3 ${script('deny-rm.py')}`)], cwd, {
      env: { ...process.env, HOOK_CHILD_PID: pidFile },
    });
    const started = performance.now();
    const outcome = await runner.preToolUse({ id: 'c1', tool: 'shell', input: { command: 'rm -rf /tmp/x' } });
    expect(performance.now() - started).toBeLessThan(3000);
    // The other hook's answer still counts.
    expect(outcome.decision).toBe('deny');
    expect(outcome.userMessages).toEqual([
      expect.stringMatching(/PreToolUse hook "bash .*sleep\.sh" \(user settings\) did not finish within 1 s and was stopped\./),
    ]);
    const child = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isRunning(child)).toBe(false);
  });

  it('a hook that crashes is a non-blocking error shown to the user', async () => {
    const cwd = tempDir();
    const outcome = await runnerFor([hook('PreToolUse', `python3 ${script('crash.py')}`)], cwd).preToolUse({
      id: 'c1',
      tool: 'shell',
      input: { command: 'ls' },
    });
    expect(outcome.decision).toBeUndefined();
    expect(outcome.userMessages).toEqual([expect.stringMatching(/failed \(exit 1\): .*RuntimeError: hook exploded/)]);
  });

  it('a missing script (exit 127), a hook that never reads stdin, and invalid JSON never break a run', async () => {
    const cwd = tempDir();
    const runner = runnerFor(
      [hook('UserPromptSubmit', '/no/such/hook.sh'), hook('UserPromptSubmit', 'echo "{not json"'), hook('UserPromptSubmit', 'exit 0')],
      cwd,
    );
    const outcome = await runner.userPromptSubmit('x'.repeat(1_000_000));
    expect(outcome.blocked).toBeUndefined();
    expect(outcome.context).toBe('{not json');
    expect(outcome.userMessages).toEqual([expect.stringMatching(/failed \(exit 127\)/)]);
  });

  it('an abort kills running hooks at once', async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    const pending = runnerFor([hook('Stop', 'sleep 30')], cwd).stop(undefined, controller.signal);
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const outcome = await pending;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(existsSync(cwd)).toBe(true);
    // The user stopped it: the turn says "Interrupted", not that the hook failed.
    expect(outcome.userMessages).toEqual([]);
  });
});

/** Alive and not a zombie (a killed child whose new parent has not reaped it yet is not running). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
