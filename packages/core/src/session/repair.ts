import { INTERRUPTED_RESULT } from '../agent/convert.js';
import type { AgentMessage, AssistantMessage, ToolResultMessage } from '../agent/types.js';

/**
 * Makes a recorded history consistent, as providers require: every tool call of an assistant
 * message gets a result before the conversation moves on. A call left without one (Esc, a crash,
 * kill -9 during a slow tool) gets an "interrupted" error result right after the batch's other
 * results; a result whose call is not in the batch it follows is dropped. Returns a new array;
 * the input is not changed.
 */
export function repairHistory(messages: readonly AgentMessage[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  let batch: { call: AssistantMessage; open: Map<string, string>; insertAt: number } | undefined;

  const closeBatch = () => {
    if (!batch) return;
    const results: ToolResultMessage[] = [...batch.open].map(([toolCallId, toolName]) => ({
      role: 'tool',
      toolCallId,
      toolName,
      content: INTERRUPTED_RESULT,
      isError: true,
      status: 'interrupted',
      timestamp: batch!.call.timestamp,
    }));
    out.splice(batch.insertAt, 0, ...results);
    batch = undefined;
  };

  for (const message of messages) {
    switch (message.role) {
      case 'tool':
        if (!batch?.open.has(message.toolCallId)) break; // orphan or duplicate result
        batch.open.delete(message.toolCallId);
        out.push(message);
        batch.insertAt = out.length;
        break;
      case 'assistant':
        closeBatch();
        out.push(message);
        if (message.toolCalls.length > 0) {
          batch = { call: message, open: new Map(message.toolCalls.map((c) => [c.id, c.name])), insertAt: out.length };
        }
        break;
      case 'user':
        closeBatch();
        out.push(message);
        break;
      case 'note':
        // Notes for people may sit between results (e.g. "interrupted"); a compaction summary is
        // conversation, so the batch must be complete before it.
        if (message.kind === 'compaction') closeBatch();
        out.push(message);
        break;
    }
  }
  closeBatch();
  return out;
}
