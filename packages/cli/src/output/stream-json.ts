import type { AgentEvent } from '@beans/core';

type Write = (line: string) => void;

/**
 * Turns session events into Claude Agent SDK stream-json lines: each finished assistant message,
 * then each tool result as a `user` message. One JSON object per line, written as it happens.
 */
export function streamJsonWriter(sessionId: string, write: Write): (event: AgentEvent) => void {
  return (event) => {
    if (event.type !== 'message_end') return;
    const message = event.message;
    if (message.role === 'assistant') {
      const content: unknown[] = [];
      if (message.content) content.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments });
      if (content.length === 0) return;
      write(JSON.stringify({
        type: 'assistant',
        message: {
          role: 'assistant',
          model: message.model,
          content,
          stop_reason: message.stopReason,
          usage: message.usage ? { input_tokens: message.usage.inputTokens, output_tokens: message.usage.outputTokens } : undefined,
        },
        session_id: sessionId,
      }));
    } else if (message.role === 'tool') {
      write(JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, is_error: message.isError }] },
        session_id: sessionId,
      }));
    }
  };
}
