import type { MemoryStore } from '../memory/memory-store.js';
import type { ShellSandbox } from '../sandbox/index.js';
import type { BackgroundTasks } from '../tools/background-tasks.js';
import type { EditorFiles } from '../tools/editor-files.js';
import type { BackgroundShells } from './background-shells.js';
import type { PermissionChain } from './permission-chain.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SessionStorage } from './session-storage.js';

export interface ToolContextInput {
  storage: Pick<SessionStorage, 'toolEnv'>;
  permissions: Pick<PermissionChain, 'readDenied'>;
  sandbox: ShellSandbox | undefined;
  background: Pick<BackgroundShells, 'tasks'>;
  options: Pick<AgentSessionOptions, 'editorFiles' | 'memory'>;
}

/** What every tool call of the session runs with: its conversations', its subagents', the user's `!` lines. */
export interface SessionToolContext {
  /** Provider keys stripped, the settings' pass-through kept. */
  env: NodeJS.ProcessEnv;
  /** Paths a deny rule keeps from every file tool. */
  readDenied: ((relativePath: string) => boolean) | undefined;
  /** `--sandbox`: shell commands run inside it. */
  sandbox: ShellSandbox | undefined;
  /** An editor's buffers (`beans acp`): file tools read and write through it. */
  editorFiles: EditorFiles | undefined;
  /** Shared by every conversation and child: a server started before /clear still runs after it. */
  backgroundTasks: BackgroundTasks;
  /** A program's memory store: the memory tool saves there. */
  memory: MemoryStore | undefined;
}

/** Part: the tool context, made once (conversations add their own outputs folder). */
export function createToolContext(input: ToolContextInput): SessionToolContext {
  return {
    env: input.storage.toolEnv,
    readDenied: input.permissions.readDenied,
    sandbox: input.sandbox,
    editorFiles: input.options.editorFiles,
    backgroundTasks: input.background.tasks,
    memory: input.options.memory,
  };
}
