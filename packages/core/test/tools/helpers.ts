import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createToolSessionState, type AnyTool, type ToolContext, type ToolResult } from '../../src/tools/tool.js';
import type { Workspace } from '../../src/workspace/workspace.js';

const made: string[] = [];

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary workspace holding `files` (path -> content), removed after the test. */
export function makeWorkspace(files: Record<string, string | Buffer> = {}, options: { git?: boolean } = {}): Workspace {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-tools-')));
  made.push(root);
  writeFiles(root, files);
  if (options.git) {
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init', '--allow-empty');
  }
  return { root, cwd: root, isGit: options.git ?? false };
}

/** A temporary folder outside any workspace, removed after the test. */
export function makeOutsideDir(): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-outside-')));
  made.push(dir);
  return dir;
}

function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(root, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

export function makeContext(workspace: Workspace, extra: Partial<ToolContext> = {}): ToolContext {
  return { signal: new AbortController().signal, workspace, state: createToolSessionState(), ...extra };
}

/** Validates like the executor does, then runs the tool. */
export async function run(tool: AnyTool, input: unknown, context: ToolContext): Promise<ToolResult> {
  return tool.execute(tool.schema.parse(input), context);
}
