import type { CallToolResult, ContentBlock, Tool as McpTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResultMessage } from '../agent/types.js';
import type { PermissionMode } from '../permissions/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { toolDeclaration } from '../tools/tool.js';

/** Beans' read tools: offered in every mode. */
const READ_TOOLS = ['read_file', 'grep', 'glob', 'list_directory'];
/** Tools that change files: offered from `auto-edit` on, the mode in which the policy runs them unasked. */
const EDIT_TOOLS = ['write_file', 'edit_file', 'notebook_edit'];
/** Commands and the background tasks they start: offered only in `yolo`, as only there they run unasked. */
const SHELL_TOOLS = ['shell', 'shell_output', 'kill_shell'];

/**
 * What each served tool does to the world, as MCP's hints say it. readOnlyHint: it changes nothing;
 * destructiveHint (meaningful when not read-only): it may overwrite or delete what was there;
 * openWorldHint: it reaches beyond the workspace (a command can do anything the user can).
 */
export const TOOL_ANNOTATIONS: Readonly<Record<string, ToolAnnotations>> = {
  read_file: { title: 'Read a file', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  grep: { title: 'Search file contents', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  glob: { title: 'Find files by pattern', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  list_directory: { title: 'List a folder', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // Replaces a file's whole content (or appends, which a second call repeats).
  write_file: { title: 'Write a file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  edit_file: { title: 'Edit a file', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  notebook_edit: { title: 'Edit a notebook cell', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  shell: { title: 'Run a shell command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  shell_output: { title: "Read a background command's output", readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  kill_shell: { title: 'Stop a background command', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
};

/** The tools an MCP client may call in `mode`, in the order they are listed (absent from `tools`: removed by a deny rule or the profile). */
export function servedToolNames(mode: PermissionMode, tools: ToolRegistry): string[] {
  const offered = mode === 'yolo' ? [...READ_TOOLS, ...EDIT_TOOLS, ...SHELL_TOOLS] : mode === 'auto-edit' ? [...READ_TOOLS, ...EDIT_TOOLS] : READ_TOOLS;
  return offered.filter((name) => tools.get(name) !== undefined);
}

/** The least mode that offers `name`, for a refusal that says how to get it; undefined for a tool never served. */
export function modeOffering(name: string): PermissionMode | undefined {
  if (READ_TOOLS.includes(name)) return 'default';
  if (EDIT_TOOLS.includes(name)) return 'auto-edit';
  if (SHELL_TOOLS.includes(name)) return 'yolo';
  return undefined;
}

/** A served tool as `tools/list` describes it: Beans' own description and JSON Schema, the model sees the same. */
export function mcpToolOf(tools: ToolRegistry, name: string): McpTool {
  const tool = tools.get(name)!;
  const declaration = toolDeclaration(tool);
  return {
    name,
    description: declaration.description,
    inputSchema: { ...declaration.parameters, type: 'object' },
    annotations: TOOL_ANNOTATIONS[name],
  };
}

/** A Beans tool result as MCP's: text and pictures as they are, a PDF as its text; every failure or refusal `isError`. */
export function mcpCallResult(result: Pick<ToolResultMessage, 'content' | 'isError'>): CallToolResult {
  const parts = typeof result.content === 'string' ? [{ type: 'text' as const, text: result.content }] : result.content;
  const content: ContentBlock[] = parts.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') return { type: 'image', data: part.data, mimeType: part.mimeType };
    return { type: 'text', text: `${part.name} (PDF, ${part.pages} pages), as text:\n${part.text}` };
  });
  return { content, ...(result.isError ? { isError: true } : {}) };
}

/** An error result with the reason: how every refusal reaches the client. */
export function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
