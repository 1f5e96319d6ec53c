// Issue 35: the LSP client on its own: Claude Code's declaration shape, what goes back to the model
// after an edit, and the servers that fail (not installed, silent at initialize, crashing, dying
// mid-request, flooding): one clear line, a bounded wait, a restart, and nothing left running.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { collectLspServers } from '../../src/lsp/collect.js';
import { parseLspServers, type LspServerDeclaration } from '../../src/lsp/declarations.js';
import { formatFileDiagnostics, newDiagnostics } from '../../src/lsp/diagnostics.js';
import { EditDiagnostics } from '../../src/lsp/edit-diagnostics.js';
import { LspManager } from '../../src/lsp/manager.js';
import { runOperation } from '../../src/lsp/operations.js';
import { groupAlive } from '../../src/tools/process-tree.js';
import { beansToolNameOf, claudeToolName, fromClaudeInput, toClaudeInput } from '../../src/claude/vocabulary.js';
import { beansToolRule } from '../../src/plugins/tool-names.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const FAKE = path.resolve(import.meta.dirname, '../fixtures/lsp/fake-lsp-server.mjs');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Live processes whose command line contains `needle` (NUL-separated arguments). */
function processesRunning(needle: string): string[] {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle) && !readFileSync(`/proc/${entry}/stat`, 'utf8').includes(') Z ');
    } catch {
      return false;
    }
  });
}

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-lsp-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function declaration(overrides: Partial<LspServerDeclaration>): LspServerDeclaration {
  return {
    name: 'fake',
    origin: 'plugin fake-lsp',
    file: 'x',
    command: process.execPath,
    args: [FAKE],
    extensionToLanguage: { '.fk': 'fake' },
    env: { FAKE_LSP_RESOLVE_FROM: path.join(ROOT, 'packages/core/package.json') },
    startupTimeoutMs: 10_000,
    shutdownTimeoutMs: 1_000,
    restartOnCrash: true,
    maxRestarts: 3,
    ...overrides,
  };
}

function manager(dir: string, servers: LspServerDeclaration[], warnings: string[] = []) {
  const created = new LspManager({ servers, workspaceRoot: dir, env: process.env, warn: (message) => warnings.push(message), restartBackoffMs: 50 });
  cleanups.push(() => created.close());
  return created;
}

const diagnostic = (line: number, message: string, code: string | number = 2322, severity: 1 | 2 | 3 = 1): Diagnostic => ({
  range: { start: { line, character: 4 }, end: { line, character: 9 } },
  message,
  code,
  severity,
  source: 'typescript',
});

describe('declarations in Claude Code’s lspServers shape', () => {
  it('reads every field, puts in ${CLAUDE_PLUGIN_ROOT}, and names the bad server and field', () => {
    const parsed = parseLspServers(
      {
        go: {
          command: '${CLAUDE_PLUGIN_ROOT}/bin/gopls',
          args: ['serve', '--root=${CLAUDE_PLUGIN_ROOT}'],
          extensionToLanguage: { '.go': 'go', MOD: 'go.mod' },
          env: { GOFLAGS: '${CLAUDE_PLUGIN_ROOT}/flags' },
          transport: 'stdio',
          initializationOptions: { a: 1 },
          settings: { gopls: { x: true } },
          startupTimeout: 5000,
          restartOnCrash: false,
          maxRestarts: 1,
        },
        nolang: { command: 'x' },
        socket: { command: 'y', extensionToLanguage: { '.y': 'y' }, transport: 'socket' },
      },
      '/p/.lsp.json',
      'plugin go-lsp',
      { CLAUDE_PLUGIN_ROOT: '/p' },
    );
    expect(parsed.servers).toEqual([
      {
        name: 'go',
        origin: 'plugin go-lsp',
        file: '/p/.lsp.json',
        command: '/p/bin/gopls',
        args: ['serve', '--root=/p'],
        extensionToLanguage: { '.go': 'go', '.mod': 'go.mod' },
        env: { GOFLAGS: '/p/flags' },
        initializationOptions: { a: 1 },
        settings: { gopls: { x: true } },
        startupTimeoutMs: 5000,
        shutdownTimeoutMs: 2000,
        restartOnCrash: false,
        maxRestarts: 1,
      },
    ]);
    expect(parsed.problems.map((problem) => problem.message)).toEqual([
      'LSP server "nolang": "extensionToLanguage" must map file extensions to language ids, e.g. {".ts": "typescript"}',
      'LSP server "socket": transport "socket" is not supported by Beans (only "stdio")',
    ]);
  });
});

describe('where declarations come from', () => {
  it("a plugin's plugin.json (inline or a file) and .lsp.json, the setting, the workspace's .lsp.json; the repository's wait for trust", () => {
    const dir = tempDir();
    const workspace = path.join(dir, 'repo');
    const plugin = (root: string, manifest: object, lspJson?: object) => {
      mkdirSync(path.join(root, '.claude-plugin'), { recursive: true });
      writeFileSync(path.join(root, '.claude-plugin', 'plugin.json'), JSON.stringify(manifest));
      if (lspJson) writeFileSync(path.join(root, '.lsp.json'), JSON.stringify(lspJson));
    };
    const server = (command: string, extension: string) => ({ command, extensionToLanguage: { [extension]: extension.slice(1) } });
    const user = path.join(dir, 'user-plugins');
    plugin(path.join(user, 'inline'), { name: 'inline', lspServers: { go: server('${CLAUDE_PLUGIN_ROOT}/gopls', '.go') } });
    plugin(path.join(user, 'byfile'), { name: 'byfile', lspServers: './servers.json' });
    writeFileSync(path.join(user, 'byfile', 'servers.json'), JSON.stringify({ rust: server('rust-analyzer', '.rs') }));
    // Naming its own .lsp.json in plugin.json declares its servers once.
    plugin(path.join(user, 'both'), { name: 'both', lspServers: './.lsp.json' }, { python: server('pyright-langserver', '.py') });
    plugin(path.join(workspace, 'plugins', 'repo-plugin'), { name: 'repo-plugin' }, { ruby: server('solargraph', '.rb') });
    mkdirSync(workspace, { recursive: true });
    writeFileSync(path.join(workspace, '.lsp.json'), JSON.stringify({ lua: server('lua-language-server', '.lua') }));
    const plugins = ['inline', 'byfile', 'both']
      .map((name) => ({ name, root: path.join(user, name) }))
      .concat({ name: 'repo-plugin', root: path.join(workspace, 'plugins', 'repo-plugin') });
    const sources = { workspaceRoot: workspace, plugins, settingsServers: { c: server('clangd', '.c') } };
    const untrusted = collectLspServers({ ...sources, projectTrusted: false });
    expect(untrusted.problems).toEqual([]);
    expect(untrusted.servers.map((s) => `${s.name} ${s.command} (${s.origin})`)).toEqual([
      `go ${user}/inline/gopls (plugin inline)`,
      'rust rust-analyzer (plugin byfile)',
      'python pyright-langserver (plugin both)',
      'c clangd (the lsp.servers setting)',
    ]);
    expect(untrusted.ignored.map((s) => s.name)).toEqual(['ruby', 'lua']);
    const trusted = collectLspServers({ ...sources, projectTrusted: true, skip: (s) => s.name === 'lua' });
    expect(trusted.servers.map((s) => s.name)).toEqual(['go', 'rust', 'python', 'ruby', 'c']);
  });
});

describe("Claude Code's name for the tool", () => {
  it('LSP in rules, hooks and the SDK is the lsp tool; filePath is file_path', () => {
    expect(beansToolRule('LSP')).toBe('lsp');
    expect(beansToolRule('LSP(src/**)')).toBe('lsp(src/**)');
    expect(beansToolNameOf('LSP')).toBe('lsp');
    expect(claudeToolName('lsp')).toBe('LSP');
    expect(toClaudeInput('lsp', { operation: 'hover', file_path: 'src/a.ts', line: 1, character: 2 }, '/w')).toEqual({
      operation: 'hover',
      filePath: '/w/src/a.ts',
      line: 1,
      character: 2,
    });
    expect(fromClaudeInput('lsp', { operation: 'hover', filePath: '/w/src/a.ts', line: 1, character: 2 })).toEqual({
      operation: 'hover',
      file_path: '/w/src/a.ts',
      line: 1,
      character: 2,
    });
  });
});

describe('what the model reads after an edit', () => {
  it('only the new problems, errors and warnings, at most N per file with the count of the rest', () => {
    const before = [diagnostic(1, 'old error'), diagnostic(2, 'a hint', 1, 3)];
    const after = [
      diagnostic(7, 'old error'),
      diagnostic(3, 'new error'),
      diagnostic(4, 'a warning', 'W1', 2),
      diagnostic(5, 'info', 'I', 3),
      ...Array.from({ length: 12 }, (_, i) => diagnostic(10 + i, `more ${i}`)),
    ];
    const { fresh, old } = newDiagnostics(
      after.filter((d) => (d.severity ?? 1) <= 2),
      before,
    );
    expect(old).toBe(1);
    const lines = formatFileDiagnostics('src/a.ts', fresh, 3);
    expect(lines).toEqual([
      'src/a.ts:4:5 error TS2322: new error',
      'src/a.ts:11:5 error TS2322: more 0',
      'src/a.ts:12:5 error TS2322: more 1',
      '… and 11 more in src/a.ts',
    ]);
  });
});

describe('servers that fail', () => {
  it('not installed: one line naming the plugin and the command, once per session; nothing waits', async () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const lsp = manager(dir, [declaration({ command: 'no-such-language-server-35', args: [] })], warnings);
    expect(await lsp.serverFor(path.join(dir, 'a.fk'))).toBeUndefined();
    expect(await lsp.serverFor(path.join(dir, 'b.fk'))).toBeUndefined();
    expect(warnings).toEqual([
      'Diagnostics for .fk files are off: LSP server "fake" (plugin fake-lsp) is not installed: `no-such-language-server-35` was not found on PATH',
    ]);
    expect(lsp.list()[0]).toMatchObject({ state: 'failed' });
  });

  it('never answers initialize: given up after startupTimeout, its process stopped', async () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const lsp = manager(dir, [declaration({ args: [FAKE, 'hang-init'], startupTimeoutMs: 400 })], warnings);
    const started = Date.now();
    expect(await lsp.serverFor(path.join(dir, 'a.fk'))).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(warnings).toEqual([
      'Diagnostics for .fk files are off: LSP server "fake" (plugin fake-lsp) did not answer initialize within 400 ms (startupTimeout)',
    ]);
    expect(processesRunning(`${FAKE}\0hang-init`)).toEqual([]);
  });

  it('dies mid-request: the request fails at once, the server is restarted with backoff', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a.fk');
    writeFileSync(file, 'x\n');
    const lsp = manager(dir, [declaration({ args: [FAKE, 'die-on-request'] })]);
    const synced = (await lsp.sync(file))!;
    const pid = lsp.list()[0]!.pid!;
    const started = Date.now();
    await expect(
      runOperation(
        { operation: 'goToDefinition', position: { line: 0, character: 0 }, query: '' },
        { served: synced.served, workspaceRoot: dir, timeoutMs: 20_000, signal: new AbortController().signal },
      ),
    ).rejects.toThrow(/exited during textDocument\/definition/);
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect.poll(() => lsp.list()[0], { timeout: 10_000 }).toMatchObject({ state: 'running', restarts: 1 });
    expect(lsp.list()[0]!.pid).not.toBe(pid);
    const newPid = lsp.list()[0]!.pid!;
    await lsp.close();
    expect(groupAlive(pid)).toBe(false);
    expect(groupAlive(newPid)).toBe(false);
  });

  it('crashes every time: restarted maxRestarts times, then one line and no more tries', async () => {
    const dir = tempDir();
    const warnings: string[] = [];
    // exit-once with a marker that is removed again each time: it crashes on every start.
    const marker = path.join(dir, 'marker');
    const lsp = manager(
      dir,
      [declaration({ command: '/bin/sh', args: ['-c', `rm -f ${marker}; exec "${process.execPath}" "${FAKE}" exit-once ${marker}`], maxRestarts: 2 })],
      warnings,
    );
    await lsp.serverFor(path.join(dir, 'a.fk'));
    await expect.poll(() => lsp.list()[0]!.state, { timeout: 15_000 }).toBe('failed');
    expect(lsp.list()[0]!.restarts).toBe(2);
    expect(warnings).toEqual(['Diagnostics for .fk files are off: LSP server "fake" (plugin fake-lsp) exited with code 3; not restarted after 2 restart(s)']);
  });

  it('floods diagnostics: the edit still gets a bounded, short answer', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a.fk');
    writeFileSync(file, 'x\n');
    const lsp = manager(dir, [declaration({ args: [FAKE, 'flood'] })]);
    const edits = new EditDiagnostics(lsp, { timeoutMs: 2_000, quietMs: 150 });
    await edits.beforeEdit(file);
    writeFileSync(file, 'y\n');
    const started = Date.now();
    const note = await edits.afterEdit(file, 'a.fk');
    expect(Date.now() - started).toBeLessThan(5_000);
    // The same 500 errors before and after the edit: none is new.
    expect(note).toBeUndefined();
    const fresh = path.join(dir, 'b.fk');
    await edits.beforeEdit(fresh);
    writeFileSync(fresh, 'new\n');
    const lines = (await edits.afterEdit(fresh, 'b.fk'))!.split('\n');
    expect(lines).toHaveLength(12);
    expect(lines.at(-1)).toBe('… and 490 more in b.fk');
  });

  it('says nothing after a clean edit: the wait ends after a few times its usual answer time, not the timeout', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a.fk');
    writeFileSync(file, 'x\n');
    const lsp = manager(dir, [declaration({ args: [FAKE, 'open-only'] })]);
    const edits = new EditDiagnostics(lsp, { timeoutMs: 10_000, quietMs: 150 });
    // The first edit opens the file: the server answers, and its answer time is learned.
    await edits.beforeEdit(file);
    writeFileSync(file, 'y\n');
    await edits.afterEdit(file, 'a.fk');
    await edits.beforeEdit(file);
    writeFileSync(file, 'z\n');
    const started = Date.now();
    expect(await edits.afterEdit(file, 'a.fk')).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a server that names no version: what it publishes for the text before a change is not taken for the answer', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a.fk');
    writeFileSync(file, 'fine\n');
    // Answers 800 ms after a change, so its re-publication of the text before is taken for stale
    // unless it arrives 400 ms late (300 ms was too little while the suite ran two workers).
    const lsp = manager(dir, [declaration({ args: [FAKE, 'late', '800'] })]);
    const edits = new EditDiagnostics(lsp, { timeoutMs: 10_000, quietMs: 80 });
    // Clean edits first: Beans learns how long this server takes to answer.
    for (const text of ['fine\n', 'still fine\n', 'fine again\n']) {
      await edits.beforeEdit(file);
      writeFileSync(file, text);
      expect(await edits.afterEdit(file, 'a.fk')).toBeUndefined();
    }
    await edits.beforeEdit(file);
    writeFileSync(file, 'fine\nbad\n');
    expect(await edits.afterEdit(file, 'a.fk')).toBe('The language server reports new problems after this edit:\na.fk:2:1 error E1: bad line: bad');
  });

  it('an answer in parts: once the server has answered in parts, an edit waits for the later part', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a.fk');
    writeFileSync(file, 'one\n');
    const lsp = manager(dir, [declaration({ args: [FAKE, 'parts'] })]);
    const edits = new EditDiagnostics(lsp, { timeoutMs: 10_000, quietMs: 80 });
    // Opening the file: its answer comes in two parts, 400 ms apart.
    await edits.beforeEdit(file);
    writeFileSync(file, 'two\n');
    await edits.afterEdit(file, 'a.fk');
    await new Promise((resolve) => setTimeout(resolve, 600));
    await edits.beforeEdit(file);
    writeFileSync(file, 'two\ntype\n');
    expect(await edits.afterEdit(file, 'a.fk')).toBe('The language server reports new problems after this edit:\na.fk:2:1 error E1: bad line: type');
  });
});
