import type { ChatRequest, LLMClient, LlmMessage, Usage } from '../llm/types.js';
import type { AgentMessage, AssistantMessage } from './types.js';
import { spentUsage } from './usage.js';

/** Put before a side question: after the conversation, so the request's prefix is the one the provider cached. */
const SIDE_QUESTION_NOTE =
  'A side question from the user, aside from the task: answer it briefly from the conversation so far, without calling tools. Neither the question nor your answer is kept in the conversation.';

export type SideAnswer = { answer: string; usage?: Usage } | { error: string; usage?: Usage };

/**
 * The conversation without a step still running: an answer whose tool calls have no results yet
 * (the model would read them as interrupted).
 */
export function settledMessages(messages: readonly AgentMessage[]): readonly AgentMessage[] {
  const last = messages.findLastIndex((message) => message.role === 'assistant');
  if (last === -1) return messages;
  const answered = new Set(messages.slice(last + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  return (messages[last] as AssistantMessage).toolCalls.every((call) => answered.has(call.id)) ? messages : messages.slice(0, last);
}

/**
 * One request with the conversation and the question last; `request` is what the agent loop would
 * send (system prompt, tools, thinking, cache key), so the provider's prompt cache serves the
 * conversation. A tool call in the answer is not run.
 */
export async function askSideQuestion(client: LLMClient, request: Omit<ChatRequest, 'messages'>, history: LlmMessage[], question: string): Promise<SideAnswer> {
  const result = await client.chat({ ...request, messages: [...history, { role: 'user', content: `${SIDE_QUESTION_NOTE}\n\n${question}` }] });
  const usage = spentUsage(result.usage);
  const spent = usage ? { usage } : {};
  if (result.failure) return { error: result.failure.message, ...spent };
  const answer = result.text.trim();
  if (answer) return { answer, ...spent };
  const call = result.toolCalls[0];
  return {
    error: call
      ? `the model wanted to call ${call.name}; a side question is answered from the conversation alone (ask it as a prompt to let the agent look)`
      : 'the model gave no answer',
    ...spent,
  };
}
