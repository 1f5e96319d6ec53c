import type { LlmMessage } from '../llm/types.js';
import type { AgentMessage } from './types.js';

/** What the model reads where the user stopped an answer (Esc, Ctrl+C). */
export const INTERRUPTED_NOTE = '[The user interrupted the previous answer before it finished.]';
export const INTERRUPTED_RESULT = 'Interrupted: this tool call did not finish, so its result is unknown.';

/**
 * The default boundary from agent messages to LLM messages. Notes are dropped (an interruption
 * becomes one line for the model), the latest
 * compaction summary replaces everything before it, and a tool call left without a result (Esc, a crash, kill -9)
 * gets an "interrupted" result so that providers accept the history.
 */
/**
 * The messages the model reads: a compaction summary stands for everything before it, except the
 * recent messages it kept, so the view is the summary, those kept messages, then everything after.
 */
export function modelView(messages: readonly AgentMessage[]): readonly AgentMessage[] {
  let start = -1;
  messages.forEach((message, index) => {
    if (message.role === 'note' && message.kind === 'compaction') start = index;
  });
  const note = messages[start];
  if (note?.role !== 'note') return messages;
  const kept = note.keptMessages ? messages.slice(Math.max(0, start - note.keptMessages), start) : [];
  return [note, ...kept, ...messages.slice(start + 1)];
}

export function convertToLlm(messages: readonly AgentMessage[]): LlmMessage[] {
  const out: LlmMessage[] = [];
  let open = new Map<string, string>(); // call id -> tool name, awaiting a result

  const closeOpenCalls = () => {
    for (const [id, name] of open) out.push({ role: 'tool', toolCallId: id, toolName: name, content: INTERRUPTED_RESULT, isError: true });
    open = new Map();
  };

  for (const message of modelView(messages)) {
    switch (message.role) {
      case 'user':
        closeOpenCalls();
        out.push({ role: 'user', content: message.parts ? [{ type: 'text', text: message.content }, ...message.parts] : message.content });
        break;
      case 'assistant':
        closeOpenCalls();
        if (!message.content && message.toolCalls.length === 0) break; // failed or empty turn
        out.push({
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls.length > 0 ? { toolCalls: message.toolCalls } : {}),
          ...(message.reasoning?.length ? { reasoning: message.reasoning } : {}),
        });
        for (const call of message.toolCalls) open.set(call.id, call.name);
        break;
      case 'tool':
        if (!open.has(message.toolCallId)) break; // orphan result: its call was dropped
        open.delete(message.toolCallId);
        out.push({
          role: 'tool',
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          content: message.content,
          isError: message.isError,
          ...(message.metadata ? { metadata: message.metadata } : {}),
        });
        break;
      case 'note':
        if (message.kind === 'compaction') {
          closeOpenCalls();
          out.push({ role: 'user', content: `Summary of the earlier conversation:\n${message.text}` });
        } else if (message.kind === 'interrupted') {
          // Without this the model reads a cut answer as finished, and may carry on as if it were.
          closeOpenCalls();
          out.push({ role: 'user', content: INTERRUPTED_NOTE });
        }
        break;
    }
  }
  closeOpenCalls();
  return out;
}
