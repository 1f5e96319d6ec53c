import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';

/** The Messages API accepts at most this many blocks with `cache_control` in one request. */
const MAX_CACHE_BREAKPOINTS = 4;
const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Marks the conversation for prompt caching, on top of the tools and system breakpoints the caller
 * already spent (`used`). The API reads the longest prefix an earlier request wrote that ends at a
 * breakpoint or within the 20 blocks before one, so:
 * - the last block of the newest message carries one (it moves with the conversation, as Claude
 *   Code's does): this request writes everything up to it, and the next request reads it;
 * - the last block of the user message before that carries one too: that is exactly where the
 *   previous request's moving breakpoint was, so the read hits however many blocks (a batch of 30
 *   parallel tool results) came since.
 * `cache_control` is not part of the cached content: moving it on leaves the prefix readable.
 * Mutates the freshly built `messages` and returns it.
 */
export function withConversationBreakpoints(messages: MessageParam[], used: number): MessageParam[] {
  let left = MAX_CACHE_BREAKPOINTS - used;
  if (left <= 0 || messages.length === 0) return messages;
  if (mark(messages[messages.length - 1])) left--;
  if (left <= 0) return messages;
  for (let i = messages.length - 2; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    mark(messages[i]);
    break;
  }
  return messages;
}

/** Puts a breakpoint on the message's last block that may carry one (not thinking, not empty text). */
function mark(message: MessageParam): boolean {
  if (typeof message.content === 'string') {
    if (!message.content) return false;
    message.content = [{ type: 'text', text: message.content, cache_control: EPHEMERAL }];
    return true;
  }
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i];
    if (!cacheable(block)) continue;
    (block as ContentBlockParam & { cache_control?: typeof EPHEMERAL }).cache_control = EPHEMERAL;
    return true;
  }
  return false;
}

function cacheable(block: ContentBlockParam): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return block.text.length > 0;
  return true;
}
