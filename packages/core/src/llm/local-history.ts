import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';
import { strictAnswerText, strictCallText, strictToolsPrompt } from './local-tools.js';
import type { ContentPart, LlmMessage, ToolDeclaration } from './types.js';

/**
 * Beans' conversation as node-llama-cpp's chat history, always ending in a model item for the reply
 * to continue. The same conversation renders to the same tokens every turn, so the session's
 * context sequence (its KV cache) is reused up to the first new message.
 *
 * - native: the chat template's own function calling; a call and its result are one `functionCall`
 *   item, and everything the model does until the next user message is one model item.
 * - strict: calls and answers are the JSON replies of local-tools.ts; results come back as user text.
 *   `rawReplies` holds what the model actually generated for a call id or answer, so the history
 *   repeats its exact text (and tokens) rather than a re-serialised copy.
 */
export function toChatHistory(
  system: string | undefined,
  messages: readonly LlmMessage[],
  mode: 'native' | 'strict',
  tools: readonly ToolDeclaration[],
  rawReplies: ReadonlyMap<string, string> = new Map(),
): ChatHistoryItem[] {
  const systemText = mode === 'strict' && tools.length > 0 ? [system, strictToolsPrompt(tools)].filter(Boolean).join('\n\n') : system;
  const history: ChatHistoryItem[] = systemText ? [{ type: 'system', text: systemText }] : [];
  const results = new Map<string, string>();
  for (const message of messages) if (message.role === 'tool') results.set(message.toolCallId, textOf(message.content));
  let model: ChatModelResponse | undefined;
  const pushModel = (): ChatModelResponse => {
    if (!model) {
      model = { type: 'model', response: [] };
      history.push(model);
    }
    return model;
  };
  let pendingResults: string[] = [];
  const flushResults = () => {
    if (pendingResults.length === 0) return;
    history.push({ type: 'user', text: pendingResults.join('\n\n') });
    pendingResults = [];
    model = undefined;
  };
  for (const message of messages) {
    if (message.role === 'user') {
      flushResults();
      history.push({ type: 'user', text: textOf(message.content) });
      model = undefined;
    } else if (message.role === 'assistant') {
      if (mode === 'strict') {
        flushResults();
        const calls = message.toolCalls ?? [];
        const replies = calls.map((call) => rawReplies.get(call.id) ?? strictCallText(call));
        if (calls.length === 0 && message.content) replies.push(rawReplies.get(message.content) ?? strictAnswerText(message.content));
        pushModel().response.push(replies.join('\n'));
        model = undefined;
      } else {
        const target = pushModel();
        if (message.content) target.response.push(message.content);
        for (const call of message.toolCalls ?? []) {
          const item: ChatModelFunctionCall = { type: 'functionCall', name: call.name, params: call.arguments, result: results.get(call.id) ?? '' };
          target.response.push(item);
        }
      }
    } else if (mode === 'strict') {
      pendingResults.push(`Result of ${message.toolName}${message.isError ? ' (error)' : ''}:\n${textOf(message.content)}`);
    }
    // native: a tool result is already inside its functionCall item.
  }
  flushResults();
  const last = history.at(-1);
  if (!last || last.type !== 'model') history.push({ type: 'model', response: [] });
  return history;
}

/** Local models here read text only: a PDF is its extracted text, an image a note that it was left out. */
export function textOf(content: string | readonly ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'document') return part.text;
      return `[an image (${part.mimeType}) was left out: this local model reads text only]`;
    })
    .join('\n');
}
