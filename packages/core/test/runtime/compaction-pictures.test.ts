// Issue 41: pictures count in the context by their token cost, not their base64 bytes, and when a
// request must shrink to fit the window, older pictures go first, each leaving a line in its place.
import { describe, expect, it } from 'vitest';
import type { ContentPart, LlmMessage } from '../../src/llm/types.js';
import { IMAGE_CHARS, contextChars, shortenToFit } from '../../src/runtime/compaction-cut.js';

const picture = (size: number): ContentPart => ({ type: 'image', mimeType: 'image/png', data: 'A'.repeat(size) });
const LEFT_OUT = '[A picture was left out here to keep the conversation within the context window.]';

function history(): LlmMessage[] {
  return [
    { role: 'user', content: [{ type: 'text', text: 'compare these' }, picture(400_000)] },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'b.png' } }] },
    { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [{ type: 'text', text: '[image: b.png 800×600, 300 KB]' }, picture(400_000)] },
    { role: 'assistant', content: 'The second one is darker. '.repeat(20) },
    { role: 'user', content: [{ type: 'text', text: 'and this one?' }, picture(400_000)] },
  ];
}

describe('pictures in the context', () => {
  it('count ~1,600 tokens each whatever their bytes', () => {
    const message: LlmMessage = { role: 'user', content: [{ type: 'text', text: 'hi' }, picture(1_000_000)] };
    const chars = contextChars(message);
    expect(chars).toBeGreaterThan(IMAGE_CHARS);
    expect(chars).toBeLessThan(IMAGE_CHARS + 200);
  });

  it('a history of three large pictures fits a small window untouched', () => {
    const messages = history();
    expect(shortenToFit(messages, 1_000, 40_000)).toEqual(messages);
  });

  it('when the request must shrink, the oldest pictures go first, a line in their place, the words and the newest picture kept', () => {
    const messages = history();
    const total = messages.reduce((sum, message) => sum + contextChars(message), 1_000);
    // Room for all but about one picture.
    const fitted = shortenToFit(messages, 1_000, total - IMAGE_CHARS + 1_000);
    expect(fitted[0]!.content).toEqual([
      { type: 'text', text: 'compare these' },
      { type: 'text', text: LEFT_OUT },
    ]);
    expect(fitted[2]).toEqual(messages[2]);
    expect(fitted[3]).toEqual(messages[3]);
    expect(fitted[4]).toEqual(messages[4]);
    // Tighter: the tool result's picture goes before any text is cut.
    const tighter = shortenToFit(messages, 1_000, total - 2 * IMAGE_CHARS + 1_000);
    expect((tighter[2]!.content as ContentPart[])[1]).toEqual({ type: 'text', text: LEFT_OUT });
    expect(tighter[3]).toEqual(messages[3]);
    expect((tighter[4]!.content as ContentPart[])[1]).toMatchObject({ type: 'image' });
  });
});
