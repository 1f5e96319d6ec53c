import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, lstatSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { composeAfterToolCall, composeBeforeToolCall } from '../../src/agent/tool-hooks.js';
import { executeToolCalls } from '../../src/agent/tool-executor.js';
import type { ToolResultMessage } from '../../src/agent/types.js';
import { CheckpointStore, checkpointToolHooks } from '../../src/checkpoints/index.js';
import { builtinTools } from '../../src/tools/builtin.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { createToolSessionState } from '../../src/tools/tool.js';
import type { Workspace } from '../../src/workspace/workspace.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(prefix = 'beans-checkpoints-'): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

/** Every file and link under root (not .git), as path -> content or `-> target`. */
export function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git') continue;
      const full = path.join(dir, name);
      const stats = lstatSync(full);
      const rel = path.relative(root, full);
      if (stats.isSymbolicLink()) out[rel] = `-> ${readlinkSync(full)}`;
      else if (stats.isDirectory()) walk(full);
      else out[rel] = readFileSync(full, 'latin1');
    }
  };
  walk(root);
  return out;
}

export interface Harness {
  workspace: Workspace;
  store: CheckpointStore;
  storeDir: string;
  /** Runs one user turn: its tool calls through the executor with the checkpoint seam. */
  turn(id: string, calls: { name: string; arguments: Record<string, unknown> }[]): Promise<ToolResultMessage[]>;
  problems: string[];
}

let clock = 1_000;

export function makeHarness(workspace: Workspace, options: { maxBytes?: number; maxFileBytes?: number } = {}): Harness {
  const storeDir = path.join(tempDir('beans-store-'), 'session.checkpoints');
  const store = new CheckpointStore({ dir: storeDir, workspace, ...options });
  const problems: string[] = [];
  const hooks = checkpointToolHooks(
    () => store,
    workspace,
    (problem) => problems.push(problem),
  );
  const tools = new ToolRegistry(builtinTools());
  const state = createToolSessionState();
  return {
    workspace,
    store,
    storeDir,
    problems,
    async turn(id, calls) {
      // write_file replaces only a file the model has read (Claude Code's rule): read those first, as a model does.
      const unread = calls.filter(
        (call) => call.name === 'write_file' && existsSync(path.resolve(workspace.root, String(call.arguments.path))) && call.arguments.append !== true,
      );
      const context = { workspace, state };
      for (const call of unread) await tools.get('read_file')!.execute({ path: call.arguments.path }, { ...context, signal: new AbortController().signal });
      store.startTurn({ id, at: (clock += 1_000), label: `message ${id}` });
      return executeToolCalls(
        calls.map((call, index) => ({ id: `${id}-${index}`, ...call })),
        {
          tools,
          context: { workspace, state },
          signal: new AbortController().signal,
          beforeToolCall: composeBeforeToolCall(hooks.beforeToolCall),
          afterToolCall: composeAfterToolCall(hooks.afterToolCall),
          emit: () => undefined,
          hasSteering: () => false,
          denials: [],
        },
      );
    },
  };
}
