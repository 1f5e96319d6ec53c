// Issue 41: pictures over a provider's limits are scaled down with sharp before they are sent.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fitImage, fitImages, type ImageLimits } from '../../src/llm/image-fit.js';
import type { ContentPart, LlmMessage } from '../../src/llm/types.js';
import { makeNoisePng, makePng, pngSize } from '../../../../test/support/media.ts';

const image = (bytes: Buffer, mimeType = 'image/png') => ({ type: 'image' as const, mimeType, data: bytes.toString('base64') });
const LIMITS: ImageLimits = { maxLongSide: 1568, maxBytes: 3.75 * 1024 * 1024 };

describe('fitImage', () => {
  it('sends a picture within the limits as it is: the very same part', async () => {
    const part = image(makePng(800, 600));
    expect(await fitImage(part, LIMITS)).toBe(part);
  });

  it('scales a picture whose long side is over the limit, keeping its proportions and its format', async () => {
    const part = image(makePng(3000, 1200));
    const fitted = (await fitImage(part, LIMITS)) as Extract<ContentPart, { type: 'image' }>;
    expect(fitted.mimeType).toBe('image/png');
    expect(pngSize(Buffer.from(fitted.data, 'base64'))).toEqual({ width: 1568, height: 627 });
    // Asked again (the next turn), the same bytes: the cached prompt prefix holds.
    expect(await fitImage(part, LIMITS)).toBe(fitted);
  });

  it('re-encodes a picture that is within the size but over the bytes as JPEG under the limit', async () => {
    const limits = { maxLongSide: 1568, maxBytes: 512 * 1024 };
    const noise = makeNoisePng(600, 400); // ~720 KB: random pixels do not compress
    expect(noise.length).toBeGreaterThan(limits.maxBytes);
    const fitted = (await fitImage(image(noise), limits)) as Extract<ContentPart, { type: 'image' }>;
    expect(fitted.mimeType).toBe('image/jpeg');
    const bytes = Buffer.from(fitted.data, 'base64');
    expect(bytes.length).toBeLessThanOrEqual(limits.maxBytes);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 600, 400]);
  });

  it('a picture it cannot decode becomes one line, never its bytes as text', async () => {
    // Its header says 4000 px wide, so it must be scaled; its body is not a picture.
    const garbage = Buffer.concat([makePng(4000, 10).subarray(0, 33), Buffer.from('not really a picture')]);
    const fitted = await fitImage(image(garbage), LIMITS);
    expect(fitted.type).toBe('text');
    expect((fitted as { text: string }).text).toMatch(
      /^\[picture left out: it is over what this provider takes \(1568 px a side, 3.75 MB\) and could not be scaled down: /,
    );
  });
});

describe('fitImages', () => {
  it('returns the messages themselves when no picture is in them', async () => {
    const messages: LlmMessage[] = [{ role: 'user', content: 'hi' }];
    expect(await fitImages(messages, LIMITS)).toBe(messages);
  });

  it('fits pictures in user messages and tool results alike', async () => {
    const big = image(makePng(2000, 100));
    const messages: LlmMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'look' }, big] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: {} }] },
      { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: [big] },
    ];
    const out = await fitImages(messages, LIMITS);
    const sizes = [out[0]!.content[1], out[2]!.content[0]].map((part) => pngSize(Buffer.from((part as { data: string }).data, 'base64')));
    expect(sizes).toEqual([
      { width: 1568, height: 78 },
      { width: 1568, height: 78 },
    ]);
    expect(messages[0]!.content[1]).toBe(big);
  });
});
