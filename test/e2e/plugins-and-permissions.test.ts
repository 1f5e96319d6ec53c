import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

let repo: TempRepo;
let server: ScriptedServer | undefined;

type ChatBody = { messages: { role: string; content: string }[]; tools?: { function: { name: string } }[] };

async function oneShot(args: string[], turns: ScriptTurn[] = [{ text: 'ok' }]) {
  server = await scriptedOllama({ turns });
  const run = await runBeans(args, { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
  const chats = server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as ChatBody);
  const system = chats[0]?.messages.find((message) => message.role === 'system')?.content ?? '';
  return { run, chats, system };
}

describe('profiles, context files, commands and skills', () => {
  it('puts .beans/agent.md and AGENTS.md into the system prompt', async () => {
    repo = makeTempRepo({ '.beans/agent.md': 'You are the Beans test agent. Always answer in haiku.\n', 'AGENTS.md': 'Run tests with `make check`.\n' });
    const { run, system } = await oneShot(['-p', 'hi']);
    expect(run.code).toBe(0);
    expect(system).toContain('You are the Beans test agent. Always answer in haiku.');
    expect(system).toContain('Run tests with `make check`.');
    expect(system).not.toContain('general-assistant'); // the workspace profile replaced the default
  });

  it('--agent-profile <file> replaces the workspace profile', async () => {
    repo = makeTempRepo({ '.beans/agent.md': 'WORKSPACE PROFILE\n', 'profiles/security.md': '---\nname: security\n---\nYou audit code for security flaws.\n' });
    const { run, system } = await oneShot(['-p', 'hi', '--agent-profile', 'profiles/security.md']);
    expect(run.code).toBe(0);
    expect(system).toContain('You audit code for security flaws.');
    expect(system).not.toContain('WORKSPACE PROFILE');
  });

  it('--agent-profile reviewer uses the plugin agent and only its tools', async () => {
    repo = makeTempRepo();
    const { run, chats, system } = await oneShot(['-p', 'review', '--agent-profile', 'reviewer']);
    expect(run.code).toBe(0);
    expect(system).toContain('You are a senior code reviewer.');
    expect(chats[0]!.tools!.map((tool) => tool.function.name).sort()).toEqual(['glob', 'grep', 'list_directory', 'read_file', 'shell']);
  });

  it('an unknown agent is a usage error listing the agents', async () => {
    repo = makeTempRepo();
    const run = await runBeans(['-p', 'x', '--agent-profile', 'no-such-agent'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: 'http://127.0.0.1:1' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('reviewer');
  });

  it('/review 42 expands the plugin command with its arguments', async () => {
    repo = makeTempRepo();
    const { run, chats } = await oneShot(['-p', '/review 42']);
    expect(run.code).toBe(0);
    const user = chats[0]!.messages.find((message) => message.role === 'user')!;
    expect(user.content).toContain('Review this: 42');
    expect(user.content).not.toContain('$ARGUMENTS');
  });

  it('a prompt that starts with a path is a message, not a command', async () => {
    repo = makeTempRepo();
    const { run, chats } = await oneShot(['-p', '/etc/hosts has a weird entry']);
    expect(run.code).toBe(0);
    expect(chats[0]!.messages.find((message) => message.role === 'user')!.content).toBe('/etc/hosts has a weird entry');
  });

  it('an unknown command is a usage error', async () => {
    repo = makeTempRepo();
    const { run, chats } = await oneShot(['-p', '/nope now']);
    expect(run.code).toBe(2);
    expect(chats).toHaveLength(0);
    expect(run.stderr).toContain('Unknown command /nope');
  });

  it('a trigger phrase loads the skill body before the message', async () => {
    repo = makeTempRepo();
    const { run, chats } = await oneShot(['-p', 'please read the logs in build.log']);
    expect(run.code).toBe(0);
    const users = chats[0]!.messages.filter((message) => message.role === 'user');
    expect(users).toHaveLength(2);
    expect(users[0]!.content).toContain('# Reading logs');
    expect(users[0]!.content).toContain(path.join('devops-operations', 'skills', 'read-logs'));
    expect(users[1]!.content).toBe('please read the logs in build.log');
  });

  it('-a writes a profile with the model, saves it, and reuses it while the description is unchanged', async () => {
    repo = makeTempRepo();
    const generated = 'You are a meticulous Rust performance engineer.';
    const first = await oneShot(['-p', 'hi', '-a', 'a Rust performance expert'], [{ text: generated }, { text: 'ok' }]);
    expect(first.run.code).toBe(0);
    const saved = readFileSync(path.join(repo.dir, '.beans/agent-profile.md'), 'utf8');
    expect(saved).toContain(generated);
    expect(first.chats).toHaveLength(2);
    expect(first.chats[1]!.messages[0]!.content).toContain(generated);

    const second = await oneShot(['-p', 'hi', '-a', 'a Rust performance expert'], [{ text: 'ok' }]);
    expect(second.chats).toHaveLength(1); // no second generation
    expect(second.system).toContain(generated);
  });

  it('plugins list --json reports plugins and the problems of a malformed file', async () => {
    repo = makeTempRepo({
      'plugins/team/agents/broken.md': '---\nname: broken\ndescription: Use this agent when: things break\n  <example>user: help</example>\n---\nBody\n',
      'plugins/team/commands/deploy.md': 'Deploy the service to $1.\n',
    });
    const run = await runBeans(['plugins', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(0);
    const listing = JSON.parse(run.stdout);
    const team = listing.plugins.find((plugin: { name: string }) => plugin.name === 'team');
    expect(team.root).toBe(path.join(repo.dir, 'plugins', 'team'));
    expect(team.agents[0].name).toBe('broken');
    expect(team.agents[0].description).toContain('Use this agent when: things break');
    expect(team.commands).toEqual([{ name: 'deploy', description: 'Deploy the service to $1.' }]);
    expect(listing.plugins.map((plugin: { name: string }) => plugin.name)).toEqual(
      expect.arrayContaining(['general-assistant', 'code-development', 'devops-operations']),
    );
    expect(listing.problems).toEqual(expect.arrayContaining([expect.objectContaining({ path: path.join(repo.dir, 'plugins/team/agents/broken.md') })]));
  });
});

describe('permissions in one-shot mode', () => {
  const WRITE: ScriptTurn[] = [{ toolCalls: [{ name: 'write_file', args: { path: 'out.txt', content: 'hello\n' } }] }, { text: 'finished' }];

  it('denies a write without --yolo, tells the model why, and lists it in permission_denials', async () => {
    repo = makeTempRepo();
    const { run, chats } = await oneShot(['-p', 'write it', '-o', 'json'], WRITE);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.permission_denials).toEqual([
      { tool_name: 'write_file', tool_use_id: expect.any(String), tool_input: { path: 'out.txt', content: 'hello\n' } },
    ]);
    expect(existsSync(path.join(repo.dir, 'out.txt'))).toBe(false);
    const toolResult = chats[1]!.messages.find((message) => message.role === 'tool')!;
    expect(toolResult.content).toMatch(/--yolo|--allowed-tools/);
  });

  it('lets the write land with --allowed-tools write_file', async () => {
    repo = makeTempRepo();
    const { run } = await oneShot(['-p', 'write it', '-o', 'json', '--allowed-tools', 'write_file'], WRITE);
    expect(JSON.parse(run.stdout).permission_denials).toEqual([]);
    expect(readFileSync(path.join(repo.dir, 'out.txt'), 'utf8')).toBe('hello\n');
  });

  it('keeps writes inside the workspace even with --yolo', async () => {
    repo = makeTempRepo();
    const { run, chats } = await oneShot(
      ['-p', 'escape', '--yolo'],
      [{ toolCalls: [{ name: 'write_file', args: { path: '../escape.txt', content: 'x' } }] }, { text: 'could not' }],
    );
    expect(run.code).toBe(0);
    expect(existsSync(path.join(repo.dir, '..', 'escape.txt'))).toBe(false);
    const toolResult = chats[1]!.messages.find((message) => message.role === 'tool')!;
    expect(toolResult.content).toMatch(/outside|inside/i);
  });
});
