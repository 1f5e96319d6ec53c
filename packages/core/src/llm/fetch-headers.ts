import { builtin } from './builtin.js';

/**
 * A WHATWG `Headers` that does not load Node's undici. Why: Node's `Headers`, `Response`, `Request`,
 * `fetch` and `FormData` are one lazily loaded module (undici, with its HTTP/2 client and through it
 * node:tls), ~15-25 ms of CPU on the first use, and every provider SDK touches `Headers` before its
 * first request. The bundle (scripts/bundle.mjs) points the four provider SDKs' free
 * `Headers`/`Response` names at these classes, and llm/provider-fetch.ts answers with them.
 *
 * It follows the Fetch standard the way Node's (undici 7) does, checked side by side with it in
 * test/llm/fetch-classes.test.ts: names are tokens and values are trimmed of HTTP whitespace and free
 * of NUL/CR/LF (else TypeError, same messages), names are case-insensitive and keep the case they were
 * first given, repeated values join with ", " ("; " for cookie), set-cookie values stay apart
 * (getSetCookie, one entry each when iterating), iteration is sorted by lower-cased name and sees
 * changes made during it, brand checks ("Illegal invocation"). (No `immutable` guard: the
 * Responses of http-fetch.ts have always had changeable headers, as made with `new Response`.)
 * No library was found that does this without undici: headers-polyfill drops invalid values silently,
 * sorts with localeCompare and reads globalThis.Headers in its constructor; @whatwg-node's writes
 * through to the object it was built from and validates nothing.
 *
 * `instanceof` accepts Node's own Headers too, so SDK code that meets one (from Node's fetch, which
 * http-fetch still uses for proxies) decides as before; the native class is only looked at when the
 * object says it is a Headers, so a plain object never loads undici.
 */

interface Entry {
  name: string;
  value: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const INSPECT = Symbol.for('nodejs.util.inspect.custom');
const ITERATOR_PROTOTYPE = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())) as object;

/** Adds without the checks (values already checked, or parsed off the wire). */
let appendRaw: (headers: FetchHeaders, name: string, value: string) => void;
let sortedEntries: (headers: FetchHeaders) => [string, string][];
let isOwn: (value: unknown) => value is FetchHeaders;
/** A copy with the same names, values and set-cookie list (Response.clone). */
export let copyHeaders: (headers: FetchHeaders) => FetchHeaders;

export class FetchHeaders {
  #map = new Map<string, Entry>();
  #cookies: string[] | null = null;
  #sorted: [string, string][] | null = null;

  constructor(init?: ConstructorParameters<typeof Headers>[0]) {
    if (init === undefined) return;
    fillHeaders(this, init, 'Headers constructor');
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    if (#map in value) return true;
    return Object.prototype.toString.call(value) === '[object Headers]' && value instanceof globalThis.Headers;
  }

  append(name: string, value: string): void {
    argumentCount(arguments.length, 2, 'Headers.append');
    brand(this);
    appendHeader(this, name, value, 'Headers.append');
  }

  delete(name: string): void {
    argumentCount(arguments.length, 1, 'Headers.delete');
    brand(this);
    const key = checkedName(name, 'Headers.delete');
    if (!this.#map.has(key)) return;
    this.#sorted = null;
    if (key === 'set-cookie') this.#cookies = null;
    this.#map.delete(key);
  }

  get(name: string): string | null {
    argumentCount(arguments.length, 1, 'Headers.get');
    brand(this);
    return this.#map.get(checkedName(name, 'Headers.get'))?.value ?? null;
  }

  has(name: string): boolean {
    argumentCount(arguments.length, 1, 'Headers.has');
    brand(this);
    return this.#map.has(checkedName(name, 'Headers.has'));
  }

  set(name: string, value: string): void {
    argumentCount(arguments.length, 2, 'Headers.set');
    brand(this);
    const header = checkedHeader(name, value, 'Headers.set');
    this.#sorted = null;
    if (header.key === 'set-cookie') this.#cookies = [header.value];
    this.#map.set(header.key, { name: header.name, value: header.value });
  }

  getSetCookie(): string[] {
    brand(this);
    return this.#cookies ? [...this.#cookies] : [];
  }

  forEach(callback: (value: string, name: string, parent: FetchHeaders) => void, thisArg: unknown = globalThis): void {
    brand(this);
    argumentCount(arguments.length, 1, 'Headers.forEach');
    if (typeof callback !== 'function') throw new TypeError("Failed to execute 'forEach' on 'Headers': parameter 1 is not of type 'Function'.");
    for (const [name, value] of new HeadersIterator(this, 'key+value') as unknown as Iterable<[string, string]>) callback.call(thisArg, value, name, this);
  }

  keys(): IterableIterator<string> {
    brand(this);
    return new HeadersIterator(this, 'key') as unknown as IterableIterator<string>;
  }

  values(): IterableIterator<string> {
    brand(this);
    return new HeadersIterator(this, 'value') as unknown as IterableIterator<string>;
  }

  entries(): IterableIterator<[string, string]> {
    brand(this);
    return new HeadersIterator(this, 'key+value') as unknown as IterableIterator<[string, string]>;
  }

  declare [Symbol.iterator]: () => IterableIterator<[string, string]>;

  [INSPECT](depth: number, options: { depth?: number | null }): string {
    const util = builtin('node:util');
    return `Headers ${util.formatWithOptions({ ...options, depth: options.depth ?? depth }, Object.fromEntries([...this.#map.values()].map((entry) => [entry.name, entry.value])))}`;
  }

  #add(name: string, value: string): void {
    this.#sorted = null;
    const key = name.toLowerCase();
    const existing = this.#map.get(key);
    if (existing) this.#map.set(key, { name: existing.name, value: `${existing.value}${key === 'cookie' ? '; ' : ', '}${value}` });
    else this.#map.set(key, { name, value });
    if (key === 'set-cookie') (this.#cookies ??= []).push(value);
  }

  /** "Sort and combine" of the Fetch standard: sorted by name, set-cookie values one by one. */
  #sortedEntries(): [string, string][] {
    if (this.#sorted) return this.#sorted;
    const names = [...this.#map.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const sorted: [string, string][] = [];
    for (const name of names) {
      if (name === 'set-cookie' && this.#cookies && this.#cookies.length > 1) for (const cookie of this.#cookies) sorted.push([name, cookie]);
      else sorted.push([name, this.#map.get(name)!.value]);
    }
    return (this.#sorted = sorted);
  }

  static {
    // Module-private access (no extra public members an SDK could see).
    appendRaw = (headers, name, value) => headers.#add(name, value);
    sortedEntries = (headers) => headers.#sortedEntries();
    isOwn = (value): value is FetchHeaders => typeof value === 'object' && value !== null && #map in value;
    copyHeaders = (headers) => {
      const copy = new FetchHeaders();
      copy.#map = new Map(headers.#map);
      copy.#cookies = headers.#cookies && [...headers.#cookies];
      return copy;
    };
    webInterface(FetchHeaders, 'Headers');
    // eslint-disable-next-line @typescript-eslint/unbound-method -- a method installed as another method, as Headers has it
    Object.defineProperty(FetchHeaders.prototype, Symbol.iterator, { value: FetchHeaders.prototype.entries, writable: true, configurable: true });
  }
}

/** Fills from a HeadersInit: a sequence of pairs, a record, or another Headers. */
export function fillHeaders(headers: FetchHeaders, init: unknown, prefix: string): void {
  if (typeof init !== 'object' || init === null) throw conversionFailed(prefix);
  const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
  if (typeof iterator === 'function') {
    const pairs: string[][] = [];
    for (const pair of init as Iterable<unknown>) {
      if (typeof pair !== 'object' || pair === null || typeof (pair as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function')
        throw new TypeError(`${prefix}: Expected sequence<ByteString>.`);
      pairs.push([...(pair as Iterable<unknown>)].map(byteString));
    }
    for (const pair of pairs) {
      if (pair.length !== 2) throw new TypeError(`${prefix}: expected name/value pair to be length 2, found ${pair.length}.`);
      appendHeader(headers, pair[0], pair[1], 'Headers.append');
    }
    return;
  }
  if (iterator !== undefined) throw conversionFailed(prefix);
  const record: [string, string][] = [];
  for (const key of Reflect.ownKeys(init)) {
    if (!Object.getOwnPropertyDescriptor(init, key)?.enumerable) continue;
    if (typeof key === 'symbol') throw new TypeError(`${prefix}: Key Symbol() in init is a symbol, which cannot be converted to a ByteString.`);
    record.push([byteString(key), byteString((init as Record<string, unknown>)[key])]);
  }
  for (const [name, value] of record) appendHeader(headers, name, value, 'Headers.append');
}

function appendHeader(headers: FetchHeaders, name: unknown, value: unknown, prefix: string): void {
  const header = checkedHeader(name, value, prefix);
  appendRaw(headers, header.name, header.value);
}

/** A name and value as append and set take them: converted, the value trimmed, both checked (in Node's order). */
function checkedHeader(name: unknown, value: unknown, prefix: string): { key: string; name: string; value: string } {
  const text = byteString(name);
  const normalized = normalizeValue(byteString(value));
  const key = checkedName(text, prefix);
  checkValue(normalized, prefix);
  return { key, name: text, value: normalized };
}

class HeadersIterator {
  #target: FetchHeaders;
  #kind: 'key' | 'value' | 'key+value';
  #index = 0;

  constructor(target: FetchHeaders, kind: 'key' | 'value' | 'key+value') {
    this.#target = target;
    this.#kind = kind;
  }

  next(): IteratorResult<string | [string, string]> {
    if (typeof this !== 'object' || this === null || !(#target in this))
      throw new TypeError("'next' called on an object that does not implement interface Headers Iterator.");
    // Read again at every step: a change made while iterating shows, as with Node's.
    const entries = sortedEntries(this.#target);
    if (this.#index >= entries.length) return { value: undefined, done: true };
    const [name, value] = entries[this.#index];
    this.#index += 1;
    return { value: this.#kind === 'key' ? name : this.#kind === 'value' ? value : [name, value], done: false };
  }

  static {
    // Iterator helpers (map, toArray...) and [Symbol.iterator] come from %IteratorPrototype%.
    Object.setPrototypeOf(HeadersIterator.prototype, ITERATOR_PROTOTYPE);
    Object.defineProperty(HeadersIterator.prototype, Symbol.toStringTag, { value: 'Headers Iterator', configurable: true });
  }
}

/**
 * Shapes a class like a WebIDL interface as Node's are: its `name`, a Symbol.toStringTag on the
 * prototype, and enumerable methods and getters (`for...in` over a Headers lists them).
 */
export function webInterface(cls: abstract new (...args: never[]) => unknown, name: string): void {
  Object.defineProperty(cls, 'name', { value: name });
  Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: name, configurable: true });
  for (const key of Object.getOwnPropertyNames(cls.prototype)) {
    if (key !== 'constructor') Object.defineProperty(cls.prototype, key, { enumerable: true });
  }
}

function brand(value: unknown): void {
  if (!isOwn(value)) throw new TypeError('Illegal invocation');
}

function argumentCount(given: number, needed: number, prefix: string): void {
  if (given < needed) throw new TypeError(`${prefix}: ${needed} argument${needed === 1 ? '' : 's'} required, but${given === 0 ? '' : ' only'} ${given} found.`);
}

function checkedName(name: unknown, prefix: string): string {
  const text = byteString(name);
  if (!TOKEN.test(text)) throw new TypeError(`${prefix}: "${text}" is an invalid header name.`);
  return text.toLowerCase();
}

/** No NUL, CR or LF, and no tab or space at either end. (Loops, not regular expressions: each of those costs its compilation in every process.) */
function checkValue(value: string, prefix: string): void {
  const last = value.length - 1;
  let valid = last < 0 || !(isTabOrSpace(value.charCodeAt(0)) || isTabOrSpace(value.charCodeAt(last)));
  for (let i = 0; valid && i <= last; i += 1) {
    const code = value.charCodeAt(i);
    valid = code !== 0 && code !== 10 && code !== 13;
  }
  if (!valid) throw new TypeError(`${prefix}: "${value}" is an invalid header value.`);
}

/** Leading and trailing HTTP whitespace (tab, LF, CR, space) removed. */
function normalizeValue(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start += 1;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isTabOrSpace(code: number): boolean {
  return code === 9 || code === 32;
}

function isHttpWhitespace(code: number): boolean {
  return code === 9 || code === 10 || code === 13 || code === 32;
}

/** WebIDL ByteString: String(value), and no character above U+00FF. */
export function byteString(value: unknown): string {
  if (typeof value === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
  const text = String(value);
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 255)
      throw new TypeError(`Cannot convert argument to a ByteString because the character at index ${i} has a value of ${code} which is greater than 255.`);
  }
  return text;
}

function conversionFailed(prefix: string): TypeError {
  return new TypeError(`${prefix}: Argument 1 could not be converted to one of: sequence<sequence<ByteString>>, record<ByteString, ByteString>.`);
}
