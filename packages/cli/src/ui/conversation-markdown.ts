import type { AgentMessage, ToolCall, ToolResultMessage } from '@beans/core';

/** What heads an exported conversation. */
export interface ExportHeader {
  sessionId: string;
  model: string;
  workspace: string;
  exportedAt: Date;
}

/** Argument names that say in a few words what a call did, in the order they are preferred. */
const SHORT_ARGUMENTS = ['path', 'command', 'pattern', 'url', 'query', 'description', 'prompt'];
const MAX_CALL_CHARS = 120;

/**
 * The conversation as Markdown (`/export`): each prompt and answer whole, each tool call in one
 * line with how it ended, compaction summaries marked. Notes for the person (errors, interruptions)
 * are left out: they were never part of the conversation.
 */
export function conversationMarkdown(messages: readonly AgentMessage[], header: ExportHeader): string {
  const results = new Map<string, ToolResultMessage>();
  for (const message of messages) if (message.role === 'tool') results.set(message.toolCallId, message);
  const out: string[] = [
    `# Beans conversation ${header.sessionId}`,
    '',
    `Exported ${header.exportedAt.toISOString()} · model ${header.model} · workspace ${header.workspace}`,
    '',
  ];
  let speaker: 'user' | 'assistant' | undefined;
  for (const message of messages) {
    if (message.role === 'user') {
      out.push('## You', '', (message.display ?? message.content).trim(), '');
      speaker = 'user';
    } else if (message.role === 'assistant') {
      const text = message.content.trim();
      if (!text && message.toolCalls.length === 0) continue;
      if (speaker !== 'assistant') out.push('## Beans', '');
      speaker = 'assistant';
      if (text) out.push(text, '');
      if (message.toolCalls.length) out.push(...message.toolCalls.map((call) => callLine(call, results.get(call.id))), '');
    } else if (message.role === 'note' && message.kind === 'compaction') {
      out.push('## Summary of the earlier conversation', '', message.text.trim(), '');
      speaker = undefined;
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** `- edit_file README.md · error: old_string not found…` */
function callLine(call: ToolCall, result: ToolResultMessage | undefined): string {
  const summary = shortArguments(call.arguments);
  const outcome = !result
    ? 'no result'
    : result.status === 'ok'
      ? 'ok'
      : `${result.status}: ${firstLine(typeof result.content === 'string' ? result.content : '')}`;
  return `- \`${call.name}\`${summary ? ` ${inlineCode(summary)}` : ''} · ${outcome}`;
}

function shortArguments(args: Record<string, unknown>): string {
  for (const name of SHORT_ARGUMENTS) {
    const value = args[name];
    if (typeof value === 'string' && value.trim()) return cut(value);
  }
  const json = JSON.stringify(args);
  return json === '{}' ? '' : cut(json);
}

function firstLine(text: string): string {
  return cut(text.trim().split('\n')[0] ?? '');
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > MAX_CALL_CHARS ? `${line.slice(0, MAX_CALL_CHARS - 1)}…` : line;
}

/** Inline code that survives backticks in the text (CommonMark: a longer fence). */
function inlineCode(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** The newest answer with text, for `/copy`. */
export function lastAnswer(messages: readonly AgentMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role === 'assistant' && message.content.trim()) return message.content.trim();
  }
  return undefined;
}

/** OSC 52: the terminal puts the text on the system clipboard (base64 of its UTF-8 bytes). */
export function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}
