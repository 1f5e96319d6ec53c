import path from 'node:path';
import { contentText, type ToolResult } from '../tools/tool.js';

export type ToolResultLike = Pick<ToolResult, 'content' | 'isError' | 'details'>;

/**
 * PostToolUse's `tool_response` as Claude Code passes it: the tool's output object, in the shapes the
 * Claude Agent SDK types (`sdk-tools.d.ts`: FileReadOutput, BashOutput, GlobOutput...), filled from
 * what Beans' tool returned. Fields Beans has no source for are left out rather than invented
 * (`structuredPatch` is empty, durations are absent); Write and Edit keep `success`, which Claude
 * Code's hooks documentation shows. A failed call, and tools Claude Code has no object for, send the
 * result's text, which is what the model read.
 */
export function claudeToolResponse(tool: string, input: Record<string, unknown>, result: ToolResultLike, cwd: string): unknown {
  const text = contentText(result.content);
  const success = !result.isError;
  const filePath = typeof input.path === 'string' ? path.resolve(cwd, input.path) : undefined;
  if (tool === 'write_file') {
    // A diff is shown only against an earlier file.
    return {
      type: result.details ? 'update' : 'create',
      filePath,
      content: typeof input.content === 'string' ? input.content : '',
      structuredPatch: [],
      originalFile: null,
      success,
      ...(success ? {} : { error: text }),
    };
  }
  if (tool === 'edit_file') {
    return {
      filePath,
      oldString: input.old_string,
      newString: input.new_string,
      originalFile: null,
      structuredPatch: [],
      userModified: false,
      replaceAll: input.replace_all === true,
      success,
      ...(success ? {} : { error: text }),
    };
  }
  if (tool === 'shell' && result.details?.kind === 'shell') {
    // Beans keeps stdout and stderr in one stream, as the model reads it.
    return {
      stdout: text,
      stderr: '',
      interrupted: result.details.timedOut,
      isImage: false,
      exitCode: result.details.exitCode,
      success,
      ...(result.details.backgroundTask ? { backgroundTaskId: result.details.backgroundTask } : {}),
    };
  }
  if (!success) return text;
  switch (tool) {
    case 'read_file':
      return filePath && typeof result.content === 'string' ? fileRead(filePath, text) : text;
    case 'glob': {
      const filenames = text.split('\n').filter((line) => line && !line.startsWith('['));
      return { filenames: filenames.map((name) => path.resolve(cwd, name)), numFiles: filenames.length, truncated: /\[.*(more|cut|truncated)/i.test(text) };
    }
    case 'grep': {
      const lines = text.split('\n').filter((line) => /^[^:\n]+:\d+:/.test(line));
      const filenames = [...new Set(lines.map((line) => line.slice(0, line.search(/:\d+:/))))];
      return {
        mode: 'content',
        numFiles: filenames.length,
        filenames: filenames.map((name) => path.resolve(cwd, name)),
        content: text,
        numLines: lines.length,
      };
    }
    case 'web_fetch':
      return { url: input.url, result: text, code: 200, codeText: 'OK', bytes: Buffer.byteLength(text) };
    case 'todo_write':
      return { oldTodos: [], newTodos: result.details?.kind === 'todos' ? result.details.todos : (input.todos ?? []) };
    case 'task':
      return { status: 'completed', content: [{ type: 'text', text }] };
    default:
      // MCP tools: their content blocks, as Claude Code passes an MCP result.
      if (tool.startsWith('mcp__')) return typeof result.content === 'string' ? [{ type: 'text', text: result.content }] : result.content;
      return text;
  }
}

/** FileReadOutput from read_file's numbered lines (`12\tline`) and its `[Lines a-b of N shown.]` note. */
function fileRead(filePath: string, text: string): unknown {
  const numbered = [...text.matchAll(/^(\d+)\t(.*)$/gm)];
  const startLine = numbered[0] ? Number(numbered[0][1]) : 1;
  const total = /\[Lines \d+-\d+ of (\d+)/.exec(text);
  return {
    type: 'text',
    file: {
      filePath,
      content: numbered.map((line) => line[2]).join('\n'),
      numLines: numbered.length,
      startLine,
      totalLines: total ? Number(total[1]) : startLine + numbered.length - 1,
    },
  };
}
