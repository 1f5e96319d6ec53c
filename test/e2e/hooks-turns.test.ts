// Turn-level hooks and guardrails as a user meets them: bin/beans -p with real bash hook scripts.
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

type Body = { messages: { role: string; content: string }[] };
const userTexts = (body: unknown) => (body as Body).messages.filter((m) => m.role === 'user').map((m) => m.content);

function repoWithHooks(hooks: Record<string, unknown>, scripts: Record<string, string>, guardrails?: unknown) {
  const repo = makeTempRepo();
  for (const [name, body] of Object.entries(scripts)) {
    repo.write(`hooks/${name}`, `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(path.join(repo.dir, 'hooks', name), 0o755);
  }
  // User settings: hooks there need no workspace trust.
  const settings = JSON.stringify({ hooks, ...(guardrails ? { guardrails } : {}) });
  repo.write('../home/.config/beans-agent/settings.json', settings);
  return repo;
}

describe('turn hooks and guardrails in a one-shot run', () => {
  it('UserPromptSubmit and SessionStart output reach the model with the prompt', async () => {
    const repo = repoWithHooks(
      {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "Ticket: BEANS-42"' }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: 'echo "Branch policy: small commits"' }] }],
      },
      {},
    );
    const server = await scriptedOllama({ turns: [{ text: 'noted' }] });
    const run = await runBeans(['-p', 'fix the bug'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const prompt = userTexts(server.requests.find((r) => r.kind === 'chat')!.body).at(-1)!;
    expect(prompt).toContain('fix the bug');
    expect(prompt).toContain('Ticket: BEANS-42');
    expect(prompt).toContain('Branch policy: small commits');
  });

  it('a Stop hook that blocks once sends the agent on; the second stop is let through', async () => {
    const repo = repoWithHooks(
      { Stop: [{ hooks: [{ type: 'command', command: `"$CLAUDE_PROJECT_DIR/hooks/stop.sh"` }] }] },
      {
        'stop.sh': [
          'input=$(cat)',
          'if echo "$input" | grep -q \'"stop_hook_active":true\'; then exit 0; fi',
          'echo "Run the tests before you stop." >&2',
          'exit 2',
        ].join('\n'),
      },
    );
    const server = await scriptedOllama({ turns: [{ text: 'done' }, { text: 'tests pass, done' }] });
    const run = await runBeans(['-p', 'fix it', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const chats = server.requests.filter((r) => r.kind === 'chat');
    expect(chats).toHaveLength(2);
    expect(userTexts(chats[1]!.body).at(-1)).toContain('Run the tests before you stop.');
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'tests pass, done' });
  });

  it('guardrails: a blocked prompt never reaches the model (exit 2); a secret in the answer is redacted; a blocked answer exits 1', async () => {
    const guardrails = {
      input: [{ pattern: 'DROP TABLE', action: 'block', message: 'No destructive SQL.' }],
      output: [
        { builtin: 'secrets', action: 'redact', message: 'secret removed' },
        { pattern: 'FORBIDDEN', action: 'block', message: 'That answer is not allowed.' },
      ],
    };
    const repo = repoWithHooks({}, {}, guardrails);
    const server = await scriptedOllama({
      turns: (request) => ({
        text: userTexts(request.body).at(-1)!.includes('key') ? 'Use sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345 here' : 'FORBIDDEN words',
      }),
    });
    const env = { ...repo.env, OLLAMA_HOST: server.url };

    const blocked = await runBeans(['-p', 'please DROP TABLE users', '-o', 'json'], { cwd: repo.dir, env });
    expect(blocked.code).toBe(2);
    expect(server.requests.filter((r) => r.kind === 'chat')).toHaveLength(0);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ is_error: true, errors: [expect.stringContaining('No destructive SQL.')] });

    const redacted = await runBeans(['-p', 'show me the key'], { cwd: repo.dir, env });
    expect(redacted.code).toBe(0);
    expect(redacted.stdout).not.toContain('sk-ant-api03');

    const withheld = await runBeans(['-p', 'say it'], { cwd: repo.dir, env });
    expect(withheld.code).toBe(1);
    expect(withheld.stdout).toContain('That answer is not allowed.');
    expect(withheld.stdout).not.toContain('FORBIDDEN words');
  });

  it('a pattern RE2 cannot run is a config error naming the rule and its settings file (exit 3)', async () => {
    const repo = repoWithHooks(
      {},
      {},
      {
        output: [
          { pattern: 'ok', action: 'warn' },
          { pattern: '(?<!re)fund', action: 'block' },
        ],
      },
    );
    const server = await scriptedOllama({ turns: [{ text: 'ok' }] });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(3);
    expect(server.requests.filter((r) => r.kind === 'chat')).toHaveLength(0);
    expect(run.stderr).toMatch(
      /pattern \/\(\?<!re\)fund\/ \(guardrails\.output\[1\] in \S*home\/\.config\/beans-agent\/settings\.json\) is not valid RE2 syntax: .*no lookahead, lookbehind or backreferences/,
    );
  });
});

describe('session hooks in a one-shot run', () => {
  it('PreCompact and SessionStart (compact) run around an automatic compaction, SessionEnd at the end', async () => {
    const files: Record<string, string> = {};
    // 4 files of 200 lines fill the 8,000-token window once (220 did, until notebook_edit's declaration
    // made it twice): a test of the hooks around one compaction, sized to the built-in tools.
    for (let i = 1; i <= 4; i++) files[`big${i}.txt`] = `file ${i} line with words\n`.repeat(200);
    const log = 'hook-events.log';
    const repo = repoWithHooks(
      {
        PreCompact: [{ hooks: [{ type: 'command', command: `echo "PreCompact $(cat)" >> "$CLAUDE_PROJECT_DIR/${log}"` }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: `echo "SessionStart $(cat)" >> "$CLAUDE_PROJECT_DIR/${log}"` }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: `echo "SessionEnd $(cat)" >> "$CLAUDE_PROJECT_DIR/${log}"` }] }],
      },
      {},
    );
    for (const [name, content] of Object.entries(files)) repo.write(name, content);
    let work = 0;
    const server = await scriptedOllama({
      models: [{ name: 'tiny:latest', capabilities: ['completion', 'tools'], contextLength: 8_000 }],
      turns: (request) => {
        const body = request.body as Body;
        if (body.messages[0]?.content.startsWith('Summarise the conversation')) return { text: 'SUMMARY' };
        work++;
        return work <= 4 ? { toolCalls: [{ name: 'read_file', args: { path: `big${work}.txt` } }] } : { text: 'done' };
      },
    });
    const run = await runBeans(['-p', 'read them', '-m', 'tiny:latest'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const { readFileSync } = await import('node:fs');
    const events = readFileSync(path.join(repo.dir, log), 'utf8').split('\n').filter(Boolean);
    expect(events.map((line) => line.split(' ')[0])).toEqual(['SessionStart', 'PreCompact', 'SessionStart', 'SessionEnd']);
    expect(events[0]).toContain('"source":"startup"');
    expect(events[1]).toContain('"trigger":"auto"');
    expect(events[2]).toContain('"source":"compact"');
  });
});

describe('SubagentStop', () => {
  it('a SubagentStop hook that blocks once sends the child on; the parent gets the second answer', async () => {
    const repo = repoWithHooks(
      { SubagentStop: [{ hooks: [{ type: 'command', command: `"$CLAUDE_PROJECT_DIR/hooks/substop.sh"` }] }] },
      {
        'substop.sh': [
          'input=$(cat)',
          'if echo "$input" | grep -q \'"stop_hook_active":true\'; then exit 0; fi',
          'echo "Check the logs too." >&2',
          'exit 2',
        ].join('\n'),
      },
    );
    const server = await scriptedOllama({
      turns: (request) => {
        const messages = (request.body as Body).messages;
        const assistants = messages.filter((m) => m.role === 'assistant').length;
        if (messages[0]!.content.includes('You check things.')) return { text: assistants === 0 ? 'child done' : 'child checked the logs' };
        return assistants === 0
          ? { toolCalls: [{ name: 'task', args: { description: 'check it', prompt: 'look around', subagent_type: 'checker' } }] }
          : { text: 'all done' };
      },
    });
    const agents = JSON.stringify({ checker: { description: 'Checks things', prompt: 'You check things.' } });
    const run = await runBeans(['-p', 'go', '--agents', agents, '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const parentRequests = server.requests.filter((r) => r.kind === 'chat' && !(r.body as Body).messages[0]!.content.includes('You check things.'));
    const taskResult = (parentRequests[1]!.body as Body).messages.find((m) => m.role === 'tool')!.content;
    expect(taskResult).toContain('child checked the logs');
  });
});

describe('beans plugins list', () => {
  it("shows a plugin's hooks (a hooks-only plugin is not an empty plugin)", async () => {
    const repo = makeTempRepo();
    repo.write('../home/.config/beans-agent/plugins/guard/.claude-plugin/plugin.json', JSON.stringify({ name: 'guard' }));
    repo.write(
      '../home/.config/beans-agent/plugins/guard/hooks/hooks.json',
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/check.sh' }] }] } }),
    );
    const json = await runBeans(['plugins', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(json.code).toBe(0);
    const guard = (
      JSON.parse(json.stdout) as { plugins: { name: string; hooks: { event: string; matcher?: string; command: string; runs: boolean }[] }[] }
    ).plugins.find((p) => p.name === 'guard')!;
    expect(guard.hooks).toEqual([{ event: 'PreToolUse', matcher: 'Bash', command: expect.stringMatching(/guard\/check\.sh$/), runs: true }]);
    const text = await runBeans(['plugins', 'list'], { cwd: repo.dir, env: repo.env });
    expect(text.stdout).toMatch(/hooks:\n\s+PreToolUse \[Bash\]/);
  });
});

describe("guardrails in an agent's frontmatter", () => {
  it('apply while that agent is the profile', async () => {
    const repo = makeTempRepo({
      '.beans/agent.md': [
        '---',
        'name: careful',
        'guardrails:',
        '  input:',
        '    - pattern: "rm -rf /"',
        '      action: block',
        '      message: Not on this machine.',
        '---',
        'You are careful.',
      ].join('\n'),
    });
    const server = await scriptedOllama({ turns: [{ text: 'ok' }] });
    const run = await runBeans(['-p', 'please rm -rf / now'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Not on this machine.');
    expect(server.requests.filter((r) => r.kind === 'chat')).toHaveLength(0);
  });

  it("a cloned repository's catastrophic patterns cannot hang the run", async () => {
    // Under JavaScript's backtracking engine each check of these 41-character texts runs for hours.
    const repo = makeTempRepo({
      '.beans/agent.md': [
        '---',
        'name: careful',
        'guardrails:',
        '  input:',
        '    - pattern: "^(a+)+$"',
        '      action: block',
        '  output:',
        '    - pattern: "(x+x+)+y"',
        '      action: redact',
        '      name: xs',
        '---',
        'You are careful.',
      ].join('\n'),
    });
    const server = await scriptedOllama({ turns: [{ text: `xxy then ${'x'.repeat(40)}` }] });
    const run = await runBeans(['-p', `${'a'.repeat(40)}!`], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, timeoutMs: 15_000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`[REDACTED:xs] then ${'x'.repeat(40)}`);
  });
});
