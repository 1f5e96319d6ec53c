import * as z from 'zod';
import { errorResult } from './result.js';
import { defineTool, type AnyTool, type ToolSessionState } from './tool.js';
import type { FetchLimits } from './web-fetch-http.js';
import { lazily } from '../lazily.js';

export interface WebFetchOptions extends Partial<FetchLimits> {
  /** The clock of the page cache (tests move it). */
  now?: () => number;
}

export const WEB_FETCH_DEFAULTS: FetchLimits = { timeoutMs: 30_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 5, allowPrivateNetwork: false };
/** A page fetched again within this time comes from the session's cache. */
export const WEB_FETCH_CACHE_MS = 15 * 60 * 1000;
/** What the cache of one conversation may hold: pages are up to webFetch.maxBytes each. */
const CACHE_ENTRIES = 50;
const CACHE_CHARS = 16 * 1024 * 1024;

const schema = lazily(() =>
  z.object({
    url: z.url({ protocol: /^https?$/ }),
    prompt: z.string().optional().describe('What to look for'),
  }),
);

interface CachedPage {
  at: number;
  text: string;
}

// One cache per conversation: the tools' session state lives exactly as long.
const caches = new WeakMap<ToolSessionState, Map<string, CachedPage>>();

/** The `web_fetch` tool: a page as Markdown, with the limits and the network policy of the settings. */
export function createWebFetchTool(options: WebFetchOptions = {}): AnyTool {
  const limits: FetchLimits = {
    timeoutMs: options.timeoutMs ?? WEB_FETCH_DEFAULTS.timeoutMs,
    maxBytes: options.maxBytes ?? WEB_FETCH_DEFAULTS.maxBytes,
    maxRedirects: options.maxRedirects ?? WEB_FETCH_DEFAULTS.maxRedirects,
    allowPrivateNetwork: options.allowPrivateNetwork ?? WEB_FETCH_DEFAULTS.allowPrivateNetwork,
  };
  const now = options.now ?? Date.now;
  return defineTool({
    name: 'web_fetch',
    kind: 'read',
    asksPerDomain: true,
    description: 'Fetch an http(s) URL as Markdown. A redirect to another host is returned for you to follow.',
    schema,
    summarize: (input) => input.url,
    ruleSubject: (input) => new URL(input.url).hostname.toLowerCase(),
    async execute(input, ctx) {
      const url = new URL(input.url);
      url.hash = '';
      const key = url.href;
      let cache = caches.get(ctx.state);
      if (!cache) caches.set(ctx.state, (cache = new Map<string, CachedPage>()));
      const cached = cache.get(key);
      let text: string;
      if (cached && now() - cached.at < WEB_FETCH_CACHE_MS) {
        text = cached.text;
      } else {
        // The network and HTML code loads on the first fetch, not with the tools.
        const { fetchPage, describeFailure } = await import('./web-fetch-page.js');
        try {
          const page = await fetchPage(new URL(key), limits, ctx.signal);
          if (page.isError) return errorResult(page.text);
          text = page.text;
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          return errorResult(describeFailure(key, error));
        }
        cache.delete(key);
        cache.set(key, { at: now(), text });
        // Oldest first: a long session keeps at most this many pages and characters.
        let chars = 0;
        for (const page of cache.values()) chars += page.text.length;
        for (const [old, page] of cache) {
          if (cache.size <= CACHE_ENTRIES && chars <= CACHE_CHARS) break;
          cache.delete(old);
          chars -= page.text.length;
        }
      }
      // The page itself, not a second model's summary: the question only tells the model what to look for.
      const focus = input.prompt?.trim() ? `Asked of this page: ${input.prompt.trim()}\n` : '';
      return { content: focus + text };
    },
  });
}
