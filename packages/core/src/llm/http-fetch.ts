import type * as Http from 'node:http';
import type { IncomingMessage } from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';

/**
 * A `fetch` for the provider SDKs built on node:http/node:https instead of Node's fetch (undici).
 * Why: the first request through undici costs ~10 ms of CPU more than the same request through
 * node:http (fetch algorithm, its own connection pool, the llhttp WebAssembly parser), and that
 * request is on the path of every `beans -p`. The answer is a WHATWG `Response` around a
 * ReadableStream fed by the socket: Node's own by default, or what `options.response` builds
 * (llm/provider-fetch.ts: the undici-free one of llm/fetch-response.ts, which the provider SDKs get).
 *
 * What it keeps from fetch, because the SDKs and Beans' retry logic rely on it:
 * - failures before the answer reject with `TypeError('fetch failed', { cause })`, a body cut short
 *   errors the stream with `TypeError('terminated', { cause })`, the cause carrying Node's error
 *   code (ECONNREFUSED, ECONNRESET...) that llm/failures.ts classifies;
 * - an aborted signal rejects (or errors the body) with `signal.reason`, and closes the socket;
 * - redirects are followed (up to 20), Authorization dropped when the origin changes;
 * - like undici, 300 s without the answer's headers or 300 s of silence in its body fail with a
 *   code failures.ts counts as a dropped connection (HEADERS_TIMEOUT, BODY_TIMEOUT);
 * - gzip/deflate/br bodies are decoded (none is asked for: no accept-encoding is sent unless the
 *   caller sets one).
 * What it hands to Node's fetch instead: Request objects, bodies other than text or bytes (forms,
 * blobs, streams), and every request when a proxy set-up exists for fetch (NODE_USE_ENV_PROXY,
 * --use-env-proxy, or a global undici dispatcher someone installed), so whatever works today keeps working.
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const HEADERS_TIMEOUT_MS = 300_000;
const BODY_TIMEOUT_MS = 300_000;
const MAX_REDIRECTS = 20;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
// Where undici keeps a dispatcher installed with setGlobalDispatcher (a proxy agent, say).
const UNDICI_GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/** Builds the answer: a `Response` with the socket's body, knowing its URL and whether it was redirected. */
type ResponseFactory = (
  body: ReadableStream<Uint8Array> | null,
  init: { status: number; statusText: string; headers: [string, string][] },
  url: string,
  redirected: boolean,
) => Response;

/** Timings are options so tests can use short ones. */
export interface HttpFetchOptions {
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Node's `Response` unless told otherwise (llm/provider-fetch.ts gives an undici-free one). */
  response?: ResponseFactory;
}

export function createHttpFetch(options: HttpFetchOptions = {}): FetchFunction {
  const timeouts = {
    headers: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
    body: options.bodyTimeoutMs ?? BODY_TIMEOUT_MS,
    response: options.response ?? nodeResponse,
  };
  return async (input, init = {}) => {
    const body = requestBody(init.body);
    if (typeof input !== 'string' && !(input instanceof URL)) return globalThis.fetch(input, init);
    if (body === undefined || proxyConfigured()) return globalThis.fetch(input, init);
    if (init.signal?.aborted) throw init.signal.reason;
    let url: URL;
    try {
      url = new URL(input);
    } catch (error) {
      throw new TypeError('fetch failed', { cause: error });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return globalThis.fetch(input, init);
    let method = (init.method ?? 'GET').toUpperCase();
    let headers = requestHeaders(init.headers);
    let payload = body;
    for (let redirects = 0; ; redirects += 1) {
      const res = await send(url, method, headers, payload, init.signal ?? undefined, timeouts.headers);
      const location = res.headers.location;
      if (!REDIRECT_STATUS.has(res.statusCode ?? 0) || !location || init.redirect === 'manual')
        return toResponse(res, url, method, redirects > 0, init.signal ?? undefined, timeouts);
      res.destroy();
      if (init.redirect === 'error' || redirects >= MAX_REDIRECTS)
        throw new TypeError('fetch failed', { cause: new Error(init.redirect === 'error' ? 'unexpected redirect' : 'redirect count exceeded') });
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers = headers.filter(([name]) => name.toLowerCase() !== 'authorization');
      if (res.statusCode === 303 ? method !== 'HEAD' : (res.statusCode === 301 || res.statusCode === 302) && method === 'POST') {
        method = 'GET';
        payload = null;
        headers = headers.filter(([name]) => !/^content-(type|length|encoding|language|location)$/i.test(name));
      }
      url = next;
    }
  };
}

/** The fetch Beans' provider clients use. */
export const httpFetch: FetchFunction = createHttpFetch();

function proxyConfigured(): boolean {
  // Node's fetch installs a plain Agent when it first runs; anything else was put there on purpose.
  const dispatcher = (globalThis as Record<symbol, unknown>)[UNDICI_GLOBAL_DISPATCHER];
  if (dispatcher && dispatcher.constructor?.name !== 'Agent') return true;
  const env = process.env.NODE_USE_ENV_PROXY;
  if (env && env !== '0' && env !== 'false') return true;
  return process.execArgv.includes('--use-env-proxy') || (process.env.NODE_OPTIONS ?? '').includes('--use-env-proxy');
}

/** Text or bytes as a Buffer, null for none, undefined for a kind this fetch leaves to Node's. */
function requestBody(body: RequestInit['body']): Buffer | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return undefined;
}

function requestHeaders(init: RequestInit['headers']): [string, string][] {
  const pairs: [string, string][] = [];
  if (!init) return pairs;
  // Headers (and anything with forEach) or a list of pairs or a record.
  if (typeof (init as Headers).forEach === 'function' && !Array.isArray(init)) (init as Headers).forEach((value, name) => pairs.push([name, value]));
  else if (Array.isArray(init)) for (const [name, value] of init) pairs.push([String(name), String(value)]);
  else for (const [name, value] of Object.entries(init)) if (value !== undefined) pairs.push([name, String(value)]);
  return pairs;
}

/**
 * node:http or node:https as CommonJS modules, not `import http from 'node:http'`: an ESM import of
 * node:http builds its namespace by reading every export, and its lazy `WebSocket` export loads all
 * of undici (~25 ms of CPU). process.getBuiltinModule is Node >= 22.3; require covers 22.0-22.2.
 */
function transport(url: URL): typeof Http | typeof Https {
  const id = url.protocol === 'https:' ? 'node:https' : 'node:http';
  return process.getBuiltinModule?.(id) ?? createRequire(import.meta.url)(id);
}

function send(
  url: URL,
  method: string,
  headers: [string, string][],
  body: Buffer | null,
  signal: AbortSignal | undefined,
  headersTimeoutMs: number,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = new Map<string, string>();
    for (const [name, value] of headers) {
      const key = name.toLowerCase();
      outgoing.set(key, outgoing.has(key) ? `${outgoing.get(key)}, ${value}` : value);
    }
    if (!outgoing.has('accept')) outgoing.set('accept', '*/*');
    if (body) outgoing.set('content-length', String(body.byteLength));
    else if (method === 'POST' || method === 'PUT') outgoing.set('content-length', '0');
    const request = transport(url).request(url, { method, headers: Object.fromEntries(outgoing) });
    const onAbort = () => {
      request.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => request.destroy(codedError('the server did not answer in time', 'HEADERS_TIMEOUT')), headersTimeoutMs);
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    request.once('response', (res) => {
      settle();
      resolve(res);
    });
    // `on`, not `once`: a socket can fail again after the answer came (the body's stream reports that).
    request.on('error', (error) => {
      settle();
      reject(new TypeError('fetch failed', { cause: error }));
    });
    request.end(body ?? undefined);
  });
}

function toResponse(
  res: IncomingMessage,
  url: URL,
  method: string,
  redirected: boolean,
  signal: AbortSignal | undefined,
  options: { body: number; response: ResponseFactory },
): Response {
  const status = res.statusCode ?? 0;
  // Node's parser takes any 3-digit status; a Response cannot hold one outside 200-599.
  if (status < 200 || status > 599) {
    res.destroy();
    throw new TypeError('fetch failed', { cause: new Error(`invalid HTTP status ${status}`) });
  }
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
  const init = { status, statusText: res.statusMessage ?? '', headers };
  if (method === 'HEAD' || NULL_BODY_STATUS.has(status)) {
    res.resume();
    return options.response(null, init, url.href, redirected);
  }
  return options.response(bodyStream(res, signal, options.body), init, url.href, redirected);
}

function nodeResponse(
  body: ReadableStream<Uint8Array> | null,
  init: { status: number; statusText: string; headers: [string, string][] },
  url: string,
  redirected: boolean,
): Response {
  const response = new Response(body, init);
  // fetch's Response knows where it came from; the SDKs put `url` in their logs and errors.
  Object.defineProperties(response, { url: { value: url }, redirected: { value: redirected } });
  return response;
}

/** The socket's bytes, decoded if the server compressed them, one chunk per read, paused while unread. */
function bodyStream(res: IncomingMessage, signal: AbortSignal | undefined, bodyTimeoutMs: number): ReadableStream<Uint8Array> {
  let source: NodeJS.ReadableStream & { destroy(error?: Error): void; pause(): unknown; resume(): unknown } = res;
  let timer: NodeJS.Timeout | undefined;
  let finished = false;
  const stop = () => {
    finished = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  };
  let onAbort = () => {};
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const fail = (error: unknown) => {
        if (finished) return;
        stop();
        controller.error(error);
        res.destroy();
      };
      const idle = () => {
        clearTimeout(timer);
        timer = setTimeout(() => fail(new TypeError('terminated', { cause: codedError('the server stopped sending', 'BODY_TIMEOUT') })), bodyTimeoutMs);
      };
      onAbort = () => fail(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      // Aborted between the answer's headers and here (a microtask apart): no event will come.
      if (signal?.aborted) return onAbort();
      const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
      if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate' || encoding === 'br') {
        // Loaded only when a server compresses what was not asked to be compressed.
        const zlib = await import('node:zlib');
        const decoder = encoding === 'br' ? zlib.createBrotliDecompress() : encoding === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
        res.pipe(decoder);
        res.on('error', (error) => decoder.destroy(error));
        source = decoder;
      }
      source.on('data', (chunk: Buffer) => {
        if (finished) return;
        idle();
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.on('end', () => {
        if (finished) return;
        stop();
        controller.close();
      });
      source.on('error', (error: Error) => fail(new TypeError('terminated', { cause: error })));
      // A server that closes the socket before the body's end: Node reports `aborted` on the message.
      res.on('aborted', () => fail(new TypeError('terminated', { cause: codedError('other side closed', 'ECONNRESET') })));
      idle();
    },
    pull() {
      source.resume();
    },
    cancel() {
      stop();
      res.destroy();
    },
  });
}

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}
