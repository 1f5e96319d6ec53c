import path from 'node:path';
import { contentText, type ToolResult } from '../tools/tool.js';

export type ToolResultLike = Pick<ToolResult, 'content' | 'isError' | 'details'>;

/**
 * PostToolUse's `tool_response` in Claude Code's shape where its documentation gives one (Write and
 * Edit: `{filePath, success}`); other tools send the result's text, which is what the model read.
 */
export function claudeToolResponse(tool: string, input: Record<string, unknown>, result: ToolResultLike, cwd: string): unknown {
  const success = !result.isError;
  const filePath = typeof input.path === 'string' ? path.resolve(cwd, input.path) : undefined;
  if (tool === 'write_file') return { filePath, success, ...(success ? {} : { error: contentText(result.content) }) };
  if (tool === 'edit_file') {
    return {
      filePath,
      success,
      oldString: input.old_string,
      newString: input.new_string,
      replaceAll: input.replace_all === true,
      ...(success ? {} : { error: contentText(result.content) }),
    };
  }
  if (tool === 'shell' && result.details?.kind === 'shell') {
    return { output: contentText(result.content), exitCode: result.details.exitCode, interrupted: result.details.timedOut, success };
  }
  return contentText(result.content);
}
