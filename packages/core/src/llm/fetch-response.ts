import { builtin } from './builtin.js';
import { byteString, copyHeaders, FetchHeaders, fillHeaders, webInterface } from './fetch-headers.js';

/**
 * A WHATWG `Response` that does not load Node's undici (why: fetch-headers.ts). llm/provider-fetch.ts
 * answers with it, and the bundle gives it to the ollama, Anthropic, Gemini and OpenAI SDKs as their
 * `Response` (Gemini builds one per streamed event).
 *
 * It does what Node's does, checked side by side in test/llm/fetch-classes.test.ts: the
 * constructor's checks (status 200-599 else RangeError, statusText a reason phrase, no body with
 * 101/204/205/304, a locked or read stream refused), content-type from a text, form-params or Blob
 * body, the body as a ReadableStream read once (`bodyUsed`, "Body is unusable"), text() decoding
 * UTF-8 without a BOM, json(), arrayBuffer(), bytes(), clone() by tee.
 * What it leaves to Node's own Response, which then loads (never on a provider's path): bodies it
 * does not build itself (FormData, async iterables, other objects), blob() and formData() (MIME type
 * and multipart rules), and the statics Response.error/json/redirect.
 */
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);
// HTAB, SP, VCHAR, obs-text: RFC 9112's reason-phrase.
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

interface Extracted {
  stream: ReadableStream<Uint8Array>;
  type: string | null;
}

/** Sets what a fetched response knows (its URL, whether it was redirected); not part of the class's surface. */
export let setFetchedFrom: (response: FetchResponse, url: string, redirected: boolean) => void;
let isOwnResponse: (value: unknown) => boolean;

export class FetchResponse {
  #headers = new FetchHeaders();
  #status = 200;
  #statusText = '';
  #url = '';
  #redirected = false;
  #body: ReadableStream<Uint8Array> | null = null;

  constructor(body: ConstructorParameters<typeof Response>[0] = null, init?: ResponseInit) {
    let extracted: Extracted | null = null;
    if (body !== null) {
      const own = extractBody(body);
      // Kinds of body this class does not build: Node's Response does, exactly as before.
      if (own === undefined) return new globalThis.Response(body, init) as unknown as FetchResponse;
      extracted = own;
    }
    const { status, statusText, headers } = responseInit(init);
    if (status < 200 || status > 599) throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
    if (!REASON_PHRASE.test(statusText)) throw new TypeError('Invalid statusText');
    this.#status = status;
    this.#statusText = statusText;
    if (headers !== undefined) fillHeaders(this.#headers, headers, 'Headers constructor');
    if (extracted) {
      if (NULL_BODY_STATUS.has(status)) throw new TypeError(`Response constructor: Invalid response status code ${status}`);
      this.#body = extracted.stream;
      if (extracted.type !== null && !this.#headers.has('content-type')) this.#headers.append('content-type', extracted.type);
    }
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    if (isOwnResponse(value)) return true;
    return Object.prototype.toString.call(value) === '[object Response]' && value instanceof globalThis.Response;
  }

  static error(): Response {
    return globalThis.Response.error();
  }

  static json(data: unknown, init?: ResponseInit): Response {
    return globalThis.Response.json(data, init);
  }

  static redirect(url: string | URL, status?: number): Response {
    // Node's types make status required; Node's Response takes it optional (302).
    return (globalThis.Response.redirect as (url: string | URL, status?: number) => Response)(url, status);
  }

  get type(): Response['type'] {
    own(this);
    return 'default';
  }

  get url(): string {
    return own(this).#url;
  }

  get redirected(): boolean {
    return own(this).#redirected;
  }

  get status(): number {
    return own(this).#status;
  }

  get ok(): boolean {
    const status = own(this).#status;
    return status >= 200 && status <= 299;
  }

  get statusText(): string {
    return own(this).#statusText;
  }

  get headers(): FetchHeaders {
    return own(this).#headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return own(this).#body;
  }

  get bodyUsed(): boolean {
    const body = own(this).#body;
    return body !== null && disturbed(body);
  }

  clone(): FetchResponse {
    own(this);
    if (this.#unusable()) throw new TypeError('Response.clone: Body has already been consumed.');
    const copy = new FetchResponse(null, { status: this.#status, statusText: this.#statusText });
    copy.#headers = copyHeaders(this.#headers);
    copy.#url = this.#url;
    copy.#redirected = this.#redirected;
    if (this.#body) [this.#body, copy.#body] = this.#body.tee();
    return copy;
  }

  async text(): Promise<string> {
    return utf8Decode(await own(this).#consume());
  }

  async json(): Promise<unknown> {
    return JSON.parse(utf8Decode(await own(this).#consume()));
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await own(this).#consume()).buffer as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    return own(this).#consume();
  }

  async blob(): Promise<Blob> {
    const bytes = await own(this).#consume();
    return new globalThis.Response(bytes, { headers: this.#headers }).blob();
  }

  async formData(): Promise<FormData> {
    const bytes = await own(this).#consume();
    return new globalThis.Response(bytes, { headers: this.#headers }).formData();
  }

  [INSPECT](depth: number, options: { depth?: number | null }): string {
    const util = builtin('node:util');
    const { status, statusText, headers, body, bodyUsed, ok, redirected, type, url } = this;
    return `Response ${util.formatWithOptions({ ...options, depth: options.depth ?? depth }, { status, statusText, headers, body, bodyUsed, ok, redirected, type, url })}`;
  }

  #unusable(): boolean {
    return this.#body !== null && (this.#body.locked || disturbed(this.#body));
  }

  /** The whole body as one fresh Uint8Array (its own ArrayBuffer). */
  async #consume(): Promise<Uint8Array> {
    if (this.#unusable()) throw new TypeError('Body is unusable: Body has already been read');
    if (!this.#body) return new Uint8Array(0);
    const reader = this.#body.getReader();
    const chunks: Uint8Array[] = [];
    let length = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array)) throw new TypeError('Received non-Uint8Array chunk');
      chunks.push(value);
      length += value.byteLength;
    }
    const bytes = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return bytes;
  }

  static {
    isOwnResponse = (value) => typeof value === 'object' && value !== null && #status in value;
    setFetchedFrom = (response, url, redirected) => {
      response.#url = url;
      response.#redirected = redirected;
    };
    webInterface(FetchResponse, 'Response');
  }
}

/** The brand check of every member: `this` must be one of this class's objects. */
function own(value: FetchResponse): FetchResponse {
  if (!isOwnResponse(value)) throw new TypeError('Illegal invocation');
  return value;
}

/** WebIDL ResponseInit: `status` an unsigned short (default 200), `statusText` a ByteString, `headers` a HeadersInit. */
function responseInit(init: unknown): { status: number; statusText: string; headers: unknown } {
  if (init !== undefined && init !== null && typeof init !== 'object' && typeof init !== 'function')
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a primitive here: objects and functions passed the test above
    throw new TypeError(`undefined: Expected ${String(init)} to be one of: Null, Undefined, Object.`); // Node's words, prefix and all
  const dictionary = (init ?? {}) as Record<string, unknown>;
  const status = dictionary.status === undefined ? 200 : unsignedShort(dictionary.status);
  const statusText = dictionary.statusText === undefined ? '' : byteString(dictionary.statusText);
  return { status, statusText, headers: dictionary.headers };
}

function unsignedShort(value: unknown): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number === 0) return 0;
  const integer = Math.trunc(number) % 65536;
  return integer < 0 ? integer + 65536 : integer;
}

/** The body's stream and content type for the kinds this class builds; undefined for the others. */
function extractBody(body: unknown): Extracted | null | undefined {
  if (typeof body === 'string') return { stream: bytesStream(new TextEncoder().encode(body)), type: 'text/plain;charset=UTF-8' };
  if (body instanceof URLSearchParams)
    return { stream: bytesStream(new TextEncoder().encode(body.toString())), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (body instanceof ArrayBuffer) return { stream: bytesStream(new Uint8Array(body.slice(0))), type: null };
  if (ArrayBuffer.isView(body) && body.buffer instanceof ArrayBuffer)
    return { stream: bytesStream(new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength))), type: null };
  if (body instanceof Blob) return { stream: body.stream() as ReadableStream<Uint8Array>, type: body.type || null };
  if (body instanceof ReadableStream) {
    if (body.locked || disturbed(body)) throw new TypeError('Response body object should not be disturbed or locked');
    return { stream: body as ReadableStream<Uint8Array>, type: null };
  }
  return undefined;
}

/** One chunk then the end, as a byte stream (Node's Response gives a text or bytes body the same way). */
function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    type: 'bytes',
    pull(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

function disturbed(stream: ReadableStream): boolean {
  return (builtin('node:stream') as unknown as { isDisturbed(stream: ReadableStream): boolean }).isDisturbed(stream);
}

/** Fetch's "UTF-8 decode": a leading BOM dropped, invalid bytes as U+FFFD. */
function utf8Decode(bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return new TextDecoder().decode(start ? bytes.subarray(start) : bytes);
}
