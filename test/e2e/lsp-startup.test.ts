// Issue 58, item 4: language servers as users install them. `npm i typescript` installs TypeScript 7
// (the native port), which typescript-language-server 6 cannot drive: the user and the model are told
// once that diagnostics are off and why. Configured servers start in the background while the model
// thinks, so the first edit is checked by a warm server; a workspace without their files starts none.
import { cpSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';
import type { RecordedRequest, ScriptOptions } from '../support/script.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
// TypeScript 5, which typescript-language-server drives (the repository's own devDependency, pinned ~5.9).
const TSSERVER = path.join(ROOT, 'node_modules', 'typescript', 'lib', 'tsserver.js');
// TypeScript 7.0.2 from npm, a workspace package of its own (test/lsp-typescript-7) so its tsc stays off .bin.
const TYPESCRIPT_7 = realpathSync(path.join(ROOT, 'test', 'lsp-typescript-7', 'node_modules', 'typescript'));
const LANGUAGE_SERVER = realpathSync(path.join(ROOT, 'node_modules', 'typescript-language-server'));

interface OllamaBody {
  messages: { role: string; content: string }[];
}
const chats = (requests: RecordedRequest[]) => requests.filter((request) => request.kind === 'chat');
const lastToolResult = (request: RecordedRequest) => (request.body as OllamaBody).messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';

function writeUserSettings(repo: TempRepo, settings: unknown): void {
  const file = path.join(repo.env.XDG_CONFIG_HOME!, 'beans-agent', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(settings));
}

/** Language server processes (typescript-language-server, tsserver) working in `dir`. */
function languageServersIn(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if ((cwd === dir || cwd.startsWith(`${dir}/`)) && /typescript-language-server|tsserver/.test(command)) found.push(command.trim());
    } catch {
      // Gone, or not ours.
    }
  }
  return found;
}

const project = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', noEmit: true } }),
  'src/util.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
};

async function run(repo: TempRepo, turns: ScriptOptions['turns']) {
  const server = await scriptedOllama({ turns });
  const result = await runBeans(['-p', 'go', '--provider', 'ollama', '-m', 'm', '--yolo'], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url, PATH: `${BIN}:${repo.env.PATH ?? process.env.PATH}` },
    timeoutMs: 90_000,
  });
  return { result, server, requests: () => chats(server.requests) };
}

describe('language servers as users install them (issue 58)', () => {
  it(
    'TypeScript 7 beside typescript-language-server: the user and the model are told once that diagnostics are off, and why',
    { timeout: 90_000 },
    async () => {
      const repo = makeTempRepo(project);
      // `npm i -g typescript-language-server typescript` today: the server and TypeScript 7 side by side.
      const prefix = path.join(repo.home, 'global', 'node_modules');
      cpSync(LANGUAGE_SERVER, path.join(prefix, 'typescript-language-server'), { recursive: true, dereference: true });
      cpSync(TYPESCRIPT_7, path.join(prefix, 'typescript'), { recursive: true, dereference: true });
      writeUserSettings(repo, {
        lsp: {
          servers: {
            typescript: {
              command: process.execPath,
              args: [path.join(prefix, 'typescript-language-server', 'lib', 'cli.mjs'), '--stdio'],
              extensionToLanguage: { '.ts': 'typescript' },
              startupTimeout: 60_000,
            },
          },
          diagnosticsTimeoutMs: 20_000,
        },
      });
      const { result, requests } = await run(repo, [
        { toolCalls: [{ name: 'write_file', args: { path: 'src/bad.ts', content: 'export const label: string = 1;\n' } }] },
        { toolCalls: [{ name: 'write_file', args: { path: 'src/worse.ts', content: 'export const other: number = "x";\n' } }] },
        { text: 'done' },
      ]);
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stderr.split('\n').filter((line) => line.includes('Diagnostics for'));
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toContain('Diagnostics for .ts files are off');
      expect(lines[0]).toContain('cannot use TypeScript 7.0.2');
      expect(lines[0]).toContain('npm i -D typescript@5');
      const [, afterFirst, afterSecond] = requests();
      expect(lastToolResult(afterFirst!)).toContain('Diagnostics for .ts files are off');
      expect(lastToolResult(afterFirst!)).toContain('TypeScript 7.0.2');
      // Once: the second edit's result does not repeat it.
      expect(lastToolResult(afterSecond!)).not.toContain('Diagnostics for');
    },
  );

  it('the configured server starts while the model thinks about the first prompt; the first edit is checked', { timeout: 120_000 }, async () => {
    const repo = makeTempRepo(project);
    writeUserSettings(repo, {
      lsp: {
        servers: {
          typescript: {
            command: path.join(BIN, 'typescript-language-server'),
            args: ['--stdio'],
            extensionToLanguage: { '.ts': 'typescript' },
            initializationOptions: { tsserver: { path: TSSERVER } },
            startupTimeout: 60_000,
          },
        },
        diagnosticsTimeoutMs: 20_000,
      },
    });
    // The model takes ~4 s over its first answer (two chunks), as a real one thinks; the test looks
    // for the server meanwhile, before the edit exists.
    const seen: string[][] = [];
    let watching: NodeJS.Timeout | undefined;
    const { result, requests } = await run(repo, (request, n) => {
      if (n === 0) {
        watching = setInterval(() => seen.push(languageServersIn(repo.dir)), 200);
        return {
          text: ['Looking at ', 'the project.'],
          chunkDelayMs: 4_000,
          toolCalls: [
            { name: 'write_file', args: { path: 'src/bad.ts', content: "import { add } from './util.js';\nexport const label: string = add(1, 2);\n" } },
          ],
        };
      }
      clearInterval(watching);
      return { text: 'done' };
    });
    clearInterval(watching);
    expect(result.code, result.stderr).toBe(0);
    expect(
      seen.some((processes) => processes.some((command) => command.includes('tsserver'))),
      'no tsserver before the edit',
    ).toBe(true);
    expect(lastToolResult(requests()[1]!)).toContain("src/bad.ts:2:14 error TS2322: Type 'number' is not assignable to type 'string'.");
  });

  it('a workspace without files of its languages starts no server', async () => {
    const repo = makeTempRepo({ 'notes.md': '# notes\n' });
    writeUserSettings(repo, {
      lsp: {
        servers: { typescript: { command: path.join(BIN, 'typescript-language-server'), args: ['--stdio'], extensionToLanguage: { '.ts': 'typescript' } } },
      },
    });
    const seen: string[][] = [];
    const { result } = await run(repo, (_request, n) => {
      if (n === 0) return { text: ['thinking ', 'about it'], chunkDelayMs: 2_500, toolCalls: [{ name: 'shell', args: { command: 'true' } }] };
      seen.push(languageServersIn(repo.dir));
      return { text: 'done' };
    });
    expect(result.code, result.stderr).toBe(0);
    expect(seen).toEqual([[]]);
  });
});
