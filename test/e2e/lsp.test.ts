// Issue 35: language servers from npm (typescript-language-server with typescript, pyright) run by
// the built bin/beans: the diagnostics of an edit reach the model's next request, the lsp tool's
// goToDefinition and findReferences answer, a Claude Code plugin declaration loads unchanged, a
// repository's own .lsp.json waits for trust, and nothing is left running when beans exits.
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';
import type { RecordedRequest, ScriptOptions } from '../support/script.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const TSSERVER = path.join(ROOT, 'node_modules', 'typescript', 'lib', 'tsserver.js');

interface OllamaBody {
  tools?: { function: { name: string } }[];
  messages: { role: string; content: string }[];
}
const chats = (requests: RecordedRequest[]) => requests.filter((request) => request.kind === 'chat');
const lastToolResult = (request: RecordedRequest) => (request.body as OllamaBody).messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';
const toolNames = (request: RecordedRequest) => ((request.body as OllamaBody).tools ?? []).map((tool) => tool.function.name);

function writeUserSettings(repo: TempRepo, settings: unknown): void {
  const file = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings));
}

/** Processes whose working folder is inside `dir` (a language server started there, or what it started). */
function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      // The command line too, so a failure names what was left.
      if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(`${entry} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()}`);
    } catch {
      // Gone, or not ours.
    }
  }
  return found;
}

/**
 * What is still running in `dir` a moment after beans exited: a process SIGKILLed just before the
 * exit may take the kernel a little while to tear down on a loaded machine; an orphan stays.
 */
async function processesLeftIn(dir: string): Promise<string[]> {
  for (let waited = 0; waited < 3_000 && processesIn(dir).length > 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  return processesIn(dir);
}

const typescriptServer = {
  command: path.join(BIN, 'typescript-language-server'),
  args: ['--stdio'],
  extensionToLanguage: { '.ts': 'typescript' },
  initializationOptions: { tsserver: { path: TSSERVER } },
  // A cold tsserver on a busy two-core machine takes seconds to read the project.
  startupTimeout: 60_000,
};

const project = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', noEmit: true } }),
  'src/util.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
  'src/main.ts': "import { add } from './util.js';\n\nexport const total: number = add(1, 2);\nexport const again = add(total, 3);\n",
};

async function run(repo: TempRepo, turns: ScriptOptions['turns'], extraArgs: string[] = []) {
  const server = await scriptedOllama({ turns });
  const result = await runBeans(['-p', 'go', '--provider', 'ollama', '-m', 'm', '--yolo', ...extraArgs], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url, PATH: `${BIN}:${repo.env.PATH ?? process.env.PATH}` },
    timeoutMs: 90_000,
  });
  return { result, requests: chats(server.requests) };
}

describe('language servers (issue 35)', () => {
  it(
    'TypeScript: a type error an edit introduces reaches the next request; goToDefinition and findReferences answer; nothing is left running',
    { timeout: 120_000 },
    async () => {
      const repo = makeTempRepo(project);
      writeUserSettings(repo, { lsp: { servers: { typescript: typescriptServer }, diagnosticsTimeoutMs: 20_000 } });
      const { result, requests } = await run(
        repo,
        [
          {
            toolCalls: [
              { name: 'write_file', args: { path: 'src/bad.ts', content: "import { add } from './util.js';\n\nexport const label: string = add(1, 2);\n" } },
            ],
          },
          { toolCalls: [{ name: 'lsp', args: { operation: 'goToDefinition', file_path: 'src/main.ts', line: 3, character: 30 } }] },
          { toolCalls: [{ name: 'lsp', args: { operation: 'findReferences', file_path: 'src/util.ts', line: 1, character: 17 } }] },
          // A command that changes a file the server has open (main.ts, opened by goToDefinition).
          { toolCalls: [{ name: 'shell', args: { command: `printf "export const z: number = 'no';\\n" >> src/main.ts` } }] },
          { text: 'done' },
        ],
        ['-o', 'stream-json', '--verbose'],
      );
      expect(result.code, result.stderr).toBe(0);
      expect(requests).toHaveLength(5);
      // stream-json carries them in the tool result, as the model reads it.
      expect(result.stdout).toContain('src/bad.ts:3:14 error TS2322');
      expect(toolNames(requests[0]!)).toContain('lsp');
      // The diagnostic of the file just written: its place, severity, code and message.
      expect(lastToolResult(requests[1]!)).toContain("src/bad.ts:3:14 error TS2322: Type 'number' is not assignable to type 'string'.");
      expect(lastToolResult(requests[2]!)).toMatch(/^src\/util\.ts:1:17\n {2}export function add/);
      const references = lastToolResult(requests[3]!);
      for (const place of ['src/util.ts:1:17', 'src/main.ts:1:10', 'src/main.ts:3:30', 'src/main.ts:4:22', 'src/bad.ts:1:10'])
        expect(references).toContain(place);
      expect(lastToolResult(requests[4]!)).toContain(
        "The language server reports new problems in files this command changed:\nsrc/main.ts:5:14 error TS2322: Type 'string' is not assignable to type 'number'.",
      );
      expect(await processesLeftIn(repo.dir)).toEqual([]);
    },
  );

  it('no server configured: no lsp tool, nothing started', async () => {
    const repo = makeTempRepo(project);
    const { result, requests } = await run(repo, [
      { toolCalls: [{ name: 'write_file', args: { path: 'src/bad.ts', content: 'export const n: number = "x";\n' } }] },
      { text: 'done' },
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(toolNames(requests[0]!)).not.toContain('lsp');
    expect(lastToolResult(requests[1]!)).not.toContain('language server');
  });

  it("Python through a Claude Code plugin's lspServers, unchanged (pyright)", { timeout: 120_000 }, async () => {
    const repo = makeTempRepo({ 'app.py': 'def greet(name: str) -> str:\n    return "hi " + name\n' });
    const plugin = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'plugins', 'pyright-lsp');
    mkdirSync(path.join(plugin, '.claude-plugin'), { recursive: true });
    writeFileSync(
      path.join(plugin, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'pyright-lsp', description: 'Python language server', version: '1.0.0' }),
    );
    writeFileSync(
      path.join(plugin, '.lsp.json'),
      JSON.stringify({
        pyright: { command: 'pyright-langserver', args: ['--stdio'], extensionToLanguage: { '.py': 'python', '.pyi': 'python' }, startupTimeout: 60_000 },
      }),
    );
    writeUserSettings(repo, { lsp: { diagnosticsTimeoutMs: 30_000 } });
    const { result, requests } = await run(repo, [
      { toolCalls: [{ name: 'edit_file', args: { path: 'app.py', old_string: '"hi " + name', new_string: '"hi " + 3' } }] },
      { text: 'done' },
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(lastToolResult(requests[1]!)).toMatch(/app\.py:2:12 error reportOperatorIssue: Operator "\+" not supported for types/);
    expect(await processesLeftIn(repo.dir)).toEqual([]);
  });

  it("a repository's own .lsp.json waits for trust", { timeout: 60_000 }, async () => {
    const repo = makeTempRepo({ 'notes.md': '# notes\n' });
    const canary = path.join(repo.home, 'started');
    repo.write('.lsp.json', JSON.stringify({ canary: { command: 'touch', args: [canary], extensionToLanguage: { '.md': 'markdown' } } }));
    const { result, requests } = await run(repo, [{ toolCalls: [{ name: 'write_file', args: { path: 'more.md', content: '# more\n' } }] }, { text: 'done' }]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('1 language server(s) this repository declares did not start because the workspace is not trusted');
    expect(toolNames(requests[0]!)).not.toContain('lsp');
    expect(existsSync(canary)).toBe(false);
    const listed = await runBeans(['lsp', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(JSON.parse(listed.stdout).servers).toEqual([
      {
        name: 'canary',
        origin: 'the workspace .lsp.json',
        file: path.join(repo.dir, '.lsp.json'),
        command: `touch ${canary}`,
        languages: ['markdown'],
        extensions: ['.md'],
        status: 'disabled',
        reason: 'this folder is not trusted',
      },
    ]);
    // The same run with the folder trusted does start it (the canary would have shown a start above).
    await run(repo, [{ toolCalls: [{ name: 'write_file', args: { path: 'again.md', content: '# again\n' } }] }, { text: 'done' }], ['--trust']);
    expect(existsSync(canary)).toBe(true);
  });
});
