import { ToolInputError } from '../errors.js';
import { OutsideWorkspaceError } from '../workspace/paths.js';
import type { ToolResult } from './tool.js';

/** Errors from the file system the model can act on (wrong path, no permission, disk full). */
const ACTIONABLE_CODES = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EEXIST', 'ENAMETOOLONG', 'ELOOP', 'EBUSY']);

export function errorResult(content: string): ToolResult {
  return { content, isError: true };
}

/**
 * Runs a tool body and turns problems the model caused or can fix into error results it reads;
 * aborts and real bugs still throw so the executor reports them as interruptions or crashes.
 */
export async function guarded(signal: AbortSignal, body: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await body();
  } catch (error) {
    if (signal.aborted) throw error;
    if (error instanceof ToolInputError) return errorResult(error.message);
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code && ACTIONABLE_CODES.has(code)) return errorResult((error as Error).message);
    throw error;
  }
}

/**
 * A tool's `check`: runs the preparation its execute runs and lets through only the mistakes the
 * model made in this call. A path outside the workspace is left to the permission policy, which
 * has its own answer (and records the denial).
 */
export async function checkedBeforeAsking(prepare: () => Promise<unknown>): Promise<void> {
  try {
    await prepare();
  } catch (error) {
    if (error instanceof ToolInputError && !(error instanceof OutsideWorkspaceError)) throw error;
  }
}
