import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import { Writable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { checkLiteralAddress, guardedLookup } from './web-fetch-address.js';

export interface FetchLimits {
  /** For the whole fetch, redirects included. */
  timeoutMs: number;
  /** Bytes of the (decompressed) body kept; the download stops past it. */
  maxBytes: number;
  maxRedirects: number;
  allowPrivateNetwork: boolean;
}

export type FetchOutcome =
  | { kind: 'page'; url: string; status: number; contentType: string; body: Buffer; truncated: boolean }
  /** A redirect to another host: the model fetches it itself, so permissions judge the new domain. */
  | { kind: 'redirect'; from: string; to: string; status: number };

/** A fetch that failed in a way the model can act on (timeout, too many redirects, refused address). */
export class WebFetchError extends Error {
  override name = 'WebFetchError';
}

const USER_AGENT = 'Beans/0.1 (web_fetch; +https://www.npmjs.com/package/@beans/cli)';

/**
 * GETs a URL with a deadline, a size cap and a bounded number of same-host redirects, each hop
 * checked again against private addresses. The body is streamed and the download stops at the cap
 * (decompressed bytes count, so a small gzip bomb is capped too).
 */
export async function fetchWithLimits(start: URL, limits: FetchLimits, signal: AbortSignal): Promise<FetchOutcome> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  let url = start;
  try {
    for (let hop = 0; ; hop++) {
      const response = await request(url, limits.allowPrivateNetwork, combined);
      const location = response.headers.location;
      if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400 && location) {
        // Not drained: a redirect with an endless body must not keep the connection busy.
        response.destroy();
        const next = new URL(location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw new WebFetchError(`${url.href} redirects to ${next.href}, which is not an http(s) address.`);
        if (!sameSite(url, next)) return { kind: 'redirect', from: url.href, to: next.href, status: response.statusCode };
        if (hop >= limits.maxRedirects)
          throw new WebFetchError(`${start.href} redirected more than ${limits.maxRedirects} times (last to ${next.href}). Try the final address directly.`);
        url = next;
        continue;
      }
      const { body, truncated } = await readCapped(response, limits.maxBytes, combined);
      return { kind: 'page', url: url.href, status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), body, truncated };
    }
  } catch (error) {
    if (deadline.aborted && !signal.aborted)
      throw new WebFetchError(
        `${start.href} did not load within ${Math.round(limits.timeoutMs / 1000)} s (webFetch.timeoutMs). Try again later or another source.`,
      );
    throw error;
  }
}

/** Same host, or the host with and without `www.`: redirects between those are followed. */
function sameSite(from: URL, to: URL): boolean {
  const bare = (host: string) => host.replace(/^www\./, '');
  return bare(from.hostname) === bare(to.hostname) && from.port === to.port;
}

function request(url: URL, allowPrivate: boolean, signal: AbortSignal): Promise<http.IncomingMessage> {
  checkLiteralAddress(url.hostname, allowPrivate);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(url, {
      signal,
      lookup: guardedLookup(allowPrivate),
      // A fresh connection per request: a pooled socket would skip the address check.
      agent: false,
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.8',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    req.once('response', resolve);
    req.once('error', reject);
  });
}

async function readCapped(response: http.IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  const decoder = decoderFor(response);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const room = maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = maxBytes;
        // Enough: stop the download instead of reading the rest of a huge page.
        done(new CapReached());
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      done();
    },
  });
  try {
    if (decoder) await pipeline(response, decoder, sink, { signal });
    else await pipeline(response, sink, { signal });
  } catch (error) {
    if (!(error instanceof CapReached)) throw error;
    truncated = true;
  } finally {
    response.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

class CapReached extends Error {}

function decoderFor(response: http.IncomingMessage): Transform | undefined {
  switch (
    String(response.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase()
  ) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}
