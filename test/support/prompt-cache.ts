/**
 * Prompt caching as the providers bill it, for the scripted servers. A server built with a cache
 * keeps what earlier requests wrote and reports, for each request, the tokens read from the cache,
 * written to it, and the rest; `tokensOf` is the one estimate used for all three, so the report adds up.
 *
 * - Anthropic (explicit): the prompt is blocks in order tools, system, then each message's content; a
 *   block with `cache_control` is a breakpoint (at most 4, else HTTP 400). A request reads the longest
 *   prefix an earlier request wrote that ends at one of its breakpoints or within the 20 blocks before
 *   one; it writes the prefix ending at each breakpoint that is not cached yet. Prefixes under the
 *   minimum (1,024 tokens, Sonnet) are neither read nor written. `cache_control` itself is not part of
 *   the content, so a breakpoint that moves on leaves the prefix behind it readable.
 * - Automatic (OpenAI, Gemini implicit caching): every request writes its whole prompt; a request reads
 *   the longest earlier-seen prefix at any block boundary, of at least the minimum, in steps of
 *   `granularity` tokens (OpenAI: 128); OpenAI keys the cache by `prompt_cache_key` too.
 *
 * Plain erasable TypeScript (see script.ts).
 */
import { createHash } from 'node:crypto';

type CacheBill = {
  /** Tokens billed at the full input price. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
};

export type PromptCache = {
  /** Bills one request body and remembers what it wrote. Throws `CacheLimitError` for more than 4 breakpoints. */
  bill(body: unknown): CacheBill;
  /** Every bill so far, in order. */
  readonly bills: CacheBill[];
};

export class CacheLimitError extends Error {}

/** The shared token estimate: about 4 bytes a token. */
export function tokensOf(text: string): number {
  return Math.ceil(Buffer.byteLength(text) / 4);
}

const ANTHROPIC_MIN_CACHEABLE = 1_024;
const ANTHROPIC_LOOKBACK_BLOCKS = 20;
const ANTHROPIC_MAX_BREAKPOINTS = 4;

type Block = { json: string; breakpoint: boolean };

/** A block's content as cached: its JSON without `cache_control`, keys in the order sent. */
function block(value: unknown): Block {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'cache_control' in value) {
    const { cache_control: marker, ...rest } = value as Record<string, unknown>;
    return { json: JSON.stringify(rest), breakpoint: marker !== undefined && marker !== null };
  }
  return { json: JSON.stringify(value), breakpoint: false };
}

/** The Messages API prompt as blocks: tools, system, then each message's content blocks (the role belongs to its first block). */
export function anthropicBlocks(body: unknown): Block[] {
  const request = (body ?? {}) as { model?: unknown; tools?: unknown[]; system?: unknown; messages?: { role?: string; content?: unknown }[] };
  const blocks: Block[] = [];
  for (const tool of request.tools ?? []) blocks.push(block(tool));
  if (typeof request.system === 'string') blocks.push(block({ type: 'text', text: request.system }));
  else if (Array.isArray(request.system)) for (const part of request.system) blocks.push(block(part));
  for (const message of request.messages ?? []) {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : Array.isArray(message.content) ? message.content : [];
    content.forEach((part, index) => {
      const b = block(part);
      blocks.push(index === 0 ? { ...b, json: `${message.role}:${b.json}` } : b);
    });
  }
  return blocks;
}

/** Chained hashes and running token counts: entry i describes the prefix of blocks 0..i. */
function prefixes(model: string, blocks: Block[]): { hash: string; tokens: number }[] {
  const out: { hash: string; tokens: number }[] = [];
  let hash = createHash('sha256').update(`model:${model}`).digest('hex');
  let tokens = 0;
  for (const b of blocks) {
    hash = createHash('sha256').update(hash).update(b.json).digest('hex');
    tokens += tokensOf(b.json);
    out.push({ hash, tokens });
  }
  return out;
}

export function anthropicPromptCache(options: { minTokens?: number; lookback?: number } = {}): PromptCache {
  const min = options.minTokens ?? ANTHROPIC_MIN_CACHEABLE;
  const lookback = options.lookback ?? ANTHROPIC_LOOKBACK_BLOCKS;
  const written = new Set<string>();
  const bills: CacheBill[] = [];
  return {
    bills,
    bill(body) {
      const blocks = anthropicBlocks(body);
      const model = String((body as { model?: unknown })?.model ?? '');
      const marks = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
      if (marks.length > ANTHROPIC_MAX_BREAKPOINTS)
        throw new CacheLimitError(`A maximum of ${ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marks.length}.`);
      const chain = prefixes(model, blocks);
      const total = chain.at(-1)?.tokens ?? 0;
      let read = 0;
      for (const mark of marks) {
        for (let i = mark; i >= Math.max(0, mark - lookback); i--) {
          if (chain[i]!.tokens >= min && written.has(chain[i]!.hash)) {
            read = Math.max(read, chain[i]!.tokens);
            break;
          }
        }
      }
      let writeTo = read;
      for (const mark of marks) {
        const entry = chain[mark]!;
        if (entry.tokens < min) continue;
        if (!written.has(entry.hash)) writeTo = Math.max(writeTo, entry.tokens);
        written.add(entry.hash);
      }
      const bill = { input: total - writeTo, cacheRead: read, cacheWrite: writeTo - read };
      bills.push(bill);
      return bill;
    },
  };
}

/**
 * Automatic prefix caching (OpenAI, Gemini). `blocksOf` splits a body into its prompt blocks in
 * order; `keyOf` partitions the cache (OpenAI's `prompt_cache_key`).
 */
export function automaticPromptCache(options: {
  blocksOf: (body: unknown) => string[];
  minTokens: number;
  granularity?: number;
  keyOf?: (body: unknown) => string;
}): PromptCache {
  const seen = new Set<string>();
  const bills: CacheBill[] = [];
  const step = options.granularity ?? 1;
  return {
    bills,
    bill(body) {
      const key = `${String((body as { model?: unknown })?.model ?? '')}|${options.keyOf?.(body) ?? ''}`;
      const chain = prefixes(
        key,
        options.blocksOf(body).map((json) => ({ json, breakpoint: false })),
      );
      const total = chain.at(-1)?.tokens ?? 0;
      let read = 0;
      for (const entry of chain) if (entry.tokens >= options.minTokens && seen.has(entry.hash)) read = entry.tokens;
      read = Math.floor(read / step) * step;
      for (const entry of chain) seen.add(entry.hash);
      const bill = { input: total - read, cacheRead: read, cacheWrite: 0 };
      bills.push(bill);
      return bill;
    },
  };
}

/** OpenAI Chat Completions: tools, then each message; cached from 1,024 tokens in steps of 128, keyed by prompt_cache_key. */
export function openAiPromptCache(): PromptCache {
  return automaticPromptCache({
    minTokens: 1_024,
    granularity: 128,
    keyOf: (body) => String((body as { prompt_cache_key?: unknown })?.prompt_cache_key ?? ''),
    blocksOf: (body) => {
      const request = (body ?? {}) as { tools?: unknown[]; messages?: unknown[] };
      return [...(request.tools ?? []), ...(request.messages ?? [])].map((part) => JSON.stringify(part));
    },
  });
}

/** Gemini implicit caching: system instruction, tools, then each content; from 1,024 tokens (Flash). */
export function geminiPromptCache(): PromptCache {
  return automaticPromptCache({
    minTokens: 1_024,
    blocksOf: (body) => {
      const request = (body ?? {}) as { systemInstruction?: unknown; tools?: unknown[]; contents?: unknown[] };
      return [...(request.systemInstruction ? [request.systemInstruction] : []), ...(request.tools ?? []), ...(request.contents ?? [])].map((part) =>
        JSON.stringify(part),
      );
    },
  });
}
