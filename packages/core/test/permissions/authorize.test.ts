import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { createAuthorize } from '../../src/permissions/authorize.js';
import { parseToolRules } from '../../src/permissions/rules.js';
import type { AskAnswer, Authorize, PermissionMode } from '../../src/permissions/types.js';
import { editFileTool } from '../../src/tools/edit-file.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { shellTool } from '../../src/tools/shell.js';
import { todoWriteTool } from '../../src/tools/todo-write.js';
import { defineTool, type AnyTool } from '../../src/tools/tool.js';
import { writeFileTool } from '../../src/tools/write-file.js';

const signal = new AbortController().signal;
const root = '/work/project';

function check(authorize: Authorize, tool: AnyTool, input: Record<string, unknown>) {
  return authorize({ call: { id: 'c', name: tool.name, arguments: input }, tool, input }, signal);
}

const calls = {
  read: [readFileTool, { path: 'a.ts' }],
  todo: [todoWriteTool, { todos: [] }],
  edit: [editFileTool, { path: 'src/a.ts', old_string: 'a', new_string: 'b' }],
  write: [writeFileTool, { path: 'notes.md', content: 'x' }],
  shell: [shellTool, { command: 'npm test' }],
} as const;

type Outcome = 'allow' | 'deny' | 'ask';

/** What each kind of call gets in a mode, with an ask callback that records being asked. */
async function outcomes(mode: PermissionMode): Promise<Record<keyof typeof calls, Outcome>> {
  const result = {} as Record<keyof typeof calls, Outcome>;
  for (const [name, [tool, input]] of Object.entries(calls) as Array<[keyof typeof calls, readonly [AnyTool, Record<string, unknown>]]>) {
    let asked = false;
    const authorize = createAuthorize({ mode, workspace: { root }, ask: async () => ((asked = true), { decision: 'once' }) });
    const decision = await check(authorize, tool, input);
    result[name] = asked ? 'ask' : decision.allow ? 'allow' : 'deny';
  }
  return result;
}

describe('permission modes', () => {
  it('default: read and meta tools run, edits and shell ask', async () => {
    expect(await outcomes('default')).toEqual({ read: 'allow', todo: 'allow', edit: 'ask', write: 'ask', shell: 'ask' });
  });

  it('auto-edit: edits run, shell asks', async () => {
    expect(await outcomes('auto-edit')).toEqual({ read: 'allow', todo: 'allow', edit: 'allow', write: 'allow', shell: 'ask' });
  });

  it('yolo: everything runs', async () => {
    expect(await outcomes('yolo')).toEqual({ read: 'allow', todo: 'allow', edit: 'allow', write: 'allow', shell: 'allow' });
  });

  it('plan: nothing that changes anything runs, and the model is told why', async () => {
    expect(await outcomes('plan')).toEqual({ read: 'allow', todo: 'allow', edit: 'deny', write: 'deny', shell: 'deny' });
    const authorize = createAuthorize({ mode: 'plan', allow: parseToolRules('shell') });
    const decision = await check(authorize, shellTool, { command: 'npm test' });
    expect(decision).toEqual({ allow: false, reason: expect.stringContaining('plan mode is on') });
    // Issue #31: a read-only line is not a change, so plan mode runs it.
    expect(await check(authorize, shellTool, { command: 'ls' })).toEqual({ allow: true });
  });

  it('follows a mode getter as the UI switches modes', async () => {
    let mode: PermissionMode = 'plan';
    const authorize = createAuthorize({ mode: () => mode });
    expect((await check(authorize, ...calls.write)).allow).toBe(false);
    mode = 'yolo';
    expect((await check(authorize, ...calls.write)).allow).toBe(true);
  });
});

describe('rules', () => {
  it('allow rules approve matching calls without asking', async () => {
    const ask = vi.fn(async (): Promise<AskAnswer> => ({ decision: 'deny' }));
    const authorize = createAuthorize({ mode: 'default', workspace: { root }, allow: parseToolRules('shell(git *), edit_file(src/**)'), ask });
    expect((await check(authorize, shellTool, { command: 'git status' })).allow).toBe(true);
    expect((await check(authorize, editFileTool, { path: 'src/deep/a.ts', old_string: 'a', new_string: 'b' })).allow).toBe(true);
    expect((await check(authorize, editFileTool, { path: `${root}/src/b.ts`, old_string: 'a', new_string: 'b' })).allow).toBe(true);
    expect(ask).not.toHaveBeenCalled();
    expect((await check(authorize, editFileTool, { path: 'test/a.ts', old_string: 'a', new_string: 'b' })).allow).toBe(false);
    expect((await check(authorize, shellTool, { command: 'git status && rm -rf /' })).allow).toBe(false);
    expect(ask).toHaveBeenCalledTimes(2);
  });

  it('deny rules beat allow rules and yolo, and even block read tools', async () => {
    const authorize = createAuthorize({
      mode: 'yolo',
      allow: parseToolRules('shell'),
      deny: parseToolRules('shell(git push *), read_file(.env)'),
      workspace: { root },
    });
    const denied = await check(authorize, shellTool, { command: 'git push origin main' });
    expect(denied).toEqual({ allow: false, reason: expect.stringContaining('blocked by the rule shell(git push *)') });
    expect((await check(authorize, shellTool, { command: 'git status' })).allow).toBe(true);
    expect((await check(authorize, readFileTool, { path: './.env' })).allow).toBe(false);
    expect((await check(authorize, readFileTool, { path: 'src/.env' })).allow).toBe(true);
  });

  it('a subject that cannot be worked out only matches pattern-free rules', async () => {
    const odd = defineTool({ name: 'odd', kind: 'edit', description: 'x', schema: z.object({}), execute: async () => ({ content: '' }) });
    const authorize = createAuthorize({ mode: 'default', allow: parseToolRules('odd(src/**)') });
    expect((await check(authorize, odd, {})).allow).toBe(false);
    expect((await check(createAuthorize({ mode: 'default', allow: parseToolRules('odd') }), odd, {})).allow).toBe(true);
  });
});

describe('asking the user', () => {
  it('without an ask callback (one-shot) denies and tells the model how the user can allow it', async () => {
    const authorize = createAuthorize({ mode: 'default' });
    const shell = await check(authorize, shellTool, { command: 'npm test' });
    expect(shell).toEqual({ allow: false, reason: expect.stringContaining('--yolo or --allowed-tools "shell(npm test)"') });
    const write = await check(authorize, ...calls.write);
    expect(write).toEqual({ allow: false, reason: expect.stringContaining('--allowed-tools write_file') });
  });

  it('"once" allows one call; "always" allows that command prefix for the session, never other programs', async () => {
    const answers: AskAnswer[] = [{ decision: 'once' }, { decision: 'always' }];
    const ask = vi.fn(async () => answers.shift() ?? { decision: 'deny' as const });
    const authorize = createAuthorize({ mode: 'default', ask });
    // (`ls` and `git status` are read-only since issue #31 and no longer ask: other commands stand in.)
    expect((await check(authorize, shellTool, { command: 'make build' })).allow).toBe(true);
    expect((await check(authorize, shellTool, { command: 'git add src' })).allow).toBe(true);
    expect(ask).toHaveBeenCalledTimes(2);
    expect((await check(authorize, shellTool, { command: 'git add README.md' })).allow).toBe(true);
    expect(ask).toHaveBeenCalledTimes(2);
    // Approving `git add` approves neither `git push` nor another program.
    expect((await check(authorize, shellTool, { command: 'git push --force' })).allow).toBe(false);
    expect((await check(authorize, shellTool, { command: 'rm -rf build' })).allow).toBe(false);
    expect((await check(authorize, shellTool, { command: 'git add . && rm -rf build' })).allow).toBe(false);
    expect((await check(authorize, ...calls.write)).allow).toBe(false);
  });

  it('the question names the rule "always" adds, as Claude Code names it; a whole program only where its arguments cannot harm', async () => {
    const offered: (readonly string[] | undefined)[] = [];
    const authorize = createAuthorize({ mode: 'default', ask: async (request) => (offered.push(request.alwaysRules), { decision: 'always' as const }) });
    for (const command of ['npm test', 'rm -rf build', 'sleep 5', 'python3 manage.py migrate', 'make build && npm run lint', 'rm *.o']) {
      await check(authorize, shellTool, { command });
    }
    await check(authorize, ...calls.write);
    expect(offered).toEqual([
      ['shell(npm test:*)'],
      // rm acts on its operands: only this exact line, never `rm:*` or `rm -rf:*`.
      ['shell(rm -rf build)'],
      ['shell(sleep:*)'],
      ['shell(python3 manage.py migrate)'],
      ['shell(make build:*)', 'shell(npm run:*)'],
      // A glob bash expands cannot be an exact rule: approved once only.
      [],
      ['write_file'],
    ]);
    // The exact rule covers that line and nothing wider.
    const ask = vi.fn(async () => ({ decision: 'deny' as const }));
    const strict = createAuthorize({ mode: 'default', ask, allow: parseToolRules('shell(rm -rf build)') });
    expect((await check(strict, shellTool, { command: 'rm -rf build' })).allow).toBe(true);
    expect((await check(strict, shellTool, { command: 'rm -rf build ~' })).allow).toBe(false);
  });

  it('"always" on a wrapped or package-run command covers what runs, and never any program the runner could start', async () => {
    const offer = async (command: string) => {
      let offered: readonly string[] = [];
      await check(
        createAuthorize({ mode: 'default', ask: async (request) => ((offered = request.alwaysRules ?? []), { decision: 'deny' as const }) }),
        shellTool,
        { command },
      );
      return offered;
    };
    const allows = async (rules: readonly string[], command: string) =>
      (
        await check(
          createAuthorize({ mode: 'default', ask: async () => ({ decision: 'deny' as const }), allow: parseToolRules(rules.join(', ')) }),
          shellTool,
          { command },
        )
      ).allow;
    // A runner's rule names the program it runs: `pnpm exec:*` approved `pnpm exec rm -rf ~`.
    const vitest = await offer('pnpm exec vitest run');
    expect(vitest).toEqual(['shell(pnpm exec vitest:*)']);
    expect(await allows(vitest, 'pnpm exec vitest run src')).toBe(true);
    expect(await allows(vitest, 'pnpm exec rm -rf ~')).toBe(false);
    expect(await offer('pnpm exec rm -rf build')).toEqual(['shell(pnpm exec rm -rf build)']);
    expect(await offer('uv run pytest -q')).toEqual(['shell(uv run pytest:*)']);
    expect(await offer('npx rm -rf build')).toEqual(['shell(npx rm -rf build)']);
    // A wrapper's "always" covers the wrapper and what it runs (`time rm:*` alone approved nothing, not even the same line again).
    const timed = await offer('timeout 5 npm test');
    expect(timed).toEqual(['shell(timeout 5 npm test)', 'shell(npm test:*)']);
    expect(await allows(timed, 'timeout 5 npm test')).toBe(true);
    const removal = await offer('time rm -rf build');
    expect(removal).toEqual(['shell(time rm -rf build)', 'shell(rm -rf build)']);
    expect(await allows(removal, 'time rm -rf build')).toBe(true);
    expect(await allows(removal, 'time rm -rf ~')).toBe(false);
    expect(await offer('flock lockfile rm -rf build')).toEqual(['shell(flock lockfile rm -rf build)', 'shell(rm -rf build)']);
    // A shell given a script file runs what the file says: that line only.
    expect(await offer('dash deploy')).toEqual(['shell(dash deploy)']);
  });

  it('"always" on an edit tool allows that tool for the session', async () => {
    const answers: AskAnswer[] = [{ decision: 'always' }];
    const ask = vi.fn(async () => answers.shift() ?? { decision: 'deny' as const });
    const authorize = createAuthorize({ mode: 'default', ask });
    expect((await check(authorize, ...calls.write)).allow).toBe(true);
    expect((await check(authorize, ...calls.write)).allow).toBe(true);
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it('passes the request to ask and a denial reason back to the model', async () => {
    const ask = vi.fn(async (): Promise<AskAnswer> => ({ decision: 'deny', reason: 'use pnpm, not npm' }));
    const authorize = createAuthorize({ mode: 'default', ask });
    const decision = await check(authorize, shellTool, { command: 'npm install' });
    expect(decision).toEqual({ allow: false, reason: 'the user declined this shell call: use pnpm, not npm' });
    expect(ask).toHaveBeenCalledWith(expect.objectContaining({ tool: shellTool, input: { command: 'npm install' } }), signal);
  });
});

describe('protected places and the workspace fence, before anyone is asked (issue 53 items 2 and 8)', () => {
  it('a committed .beans link: writing through it, or to its real folder, always asks', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'beans-protected-')));
    mkdirSync(path.join(dir, 'cfg'));
    writeFileSync(path.join(dir, 'cfg', 'settings.json'), '{}');
    symlinkSync('cfg', path.join(dir, '.beans'));
    for (const target of ['.beans/settings.json', 'cfg/settings.json']) {
      let asked = false;
      const authorize = createAuthorize({ mode: 'auto-edit', workspace: { root: dir }, ask: async () => ((asked = true), { decision: 'deny' }) });
      await check(authorize, writeFileTool, { path: target, content: '{"permissions":{"mode":"yolo"}}' });
      expect(asked, target).toBe(true);
    }
  });

  it('an edit outside the workspace is refused in every mode without a question', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'beans-fence-')));
    for (const mode of ['default', 'auto-edit', 'yolo'] as const) {
      const ask = vi.fn(async (): Promise<AskAnswer> => ({ decision: 'once' }));
      const authorize = createAuthorize({ mode, workspace: { root: dir }, ask });
      for (const target of ['../x.txt', '/etc/hosts', '~/x']) {
        const decision = await check(authorize, writeFileTool, { path: target, content: 'x' });
        expect(decision, `${mode} ${target}`).toEqual({ allow: false, reason: expect.stringContaining('is outside the workspace') });
      }
      expect(ask).not.toHaveBeenCalled();
    }
  });

  it("asks about what the protectedWrite hook names, with its reason in a one-shot's denial", async () => {
    const authorize = createAuthorize({
      mode: 'auto-edit',
      workspace: { root },
      protectedWrite: async ({ relative }) => (relative.endsWith('.md') ? `${relative} runs code` : undefined),
    });
    expect(await check(authorize, writeFileTool, { path: 'a.md', content: 'x' })).toEqual({
      allow: false,
      reason: expect.stringContaining('a.md runs code, so changing it'),
    });
    expect(await check(authorize, writeFileTool, { path: 'a.txt', content: 'x' })).toEqual({ allow: true });
  });
});
