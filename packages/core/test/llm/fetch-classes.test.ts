// llm/fetch-headers.ts and llm/fetch-response.ts side by side with Node's own Headers and Response:
// every scenario runs against both classes and must give the same values, or throw the same kind of
// error with the same message. The SDKs that the bundle points at these classes (ollama, Anthropic,
// Gemini) then see what they saw with Node's.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FetchHeaders, FetchResponse, LazyFormData, LazyReadableStream } from '../../src/llm/fetch-classes.js';

type HeadersClass = typeof Headers;
type ResponseClass = typeof Response;
const OURS = { Headers: FetchHeaders as unknown as HeadersClass, Response: FetchResponse as unknown as ResponseClass };
const NODE = { Headers: globalThis.Headers, Response: globalThis.Response };

/** The scenario's value, or its error's class and message. */
async function outcome(run: () => unknown): Promise<unknown> {
  try {
    return { value: await run() };
  } catch (error) {
    return { threw: (error as Error).constructor.name, message: (error as Error).message };
  }
}

async function same(scenario: (classes: { Headers: HeadersClass; Response: ResponseClass }) => unknown): Promise<unknown> {
  const ours = await outcome(() => scenario(OURS));
  const node = await outcome(() => scenario(NODE));
  expect(ours).toEqual(node);
  return ours;
}

const HEADERS_SCENARIOS: Record<string, (c: { Headers: HeadersClass }) => unknown> = {
  'record with any case, numbers and undefined': ({ Headers }) => {
    const h = new Headers({ 'Content-Type': 'a/b', 'X-N': 5 as unknown as string, 'x-u': undefined as unknown as string });
    return [h.get('content-type'), h.get('CONTENT-TYPE'), h.get('x-n'), h.get('x-u'), h.has('X-n'), h.has('nope'), h.get('nope'), [...h]];
  },
  'pairs with repeats and set-cookie values apart': ({ Headers }) => {
    const h = new Headers([
      ['Set-Cookie', 'a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT'],
      ['x-a', '1'],
      ['set-cookie', 'b=2'],
      ['X-A', '2'],
      ['cookie', 'c=1'],
      ['Cookie', 'd=2'],
    ]);
    return [h.get('set-cookie'), h.getSetCookie(), h.get('x-a'), h.get('cookie'), [...h.entries()], [...h.keys()], [...h.values()]];
  },
  'a single set-cookie, then set and delete': ({ Headers }) => {
    const h = new Headers([['set-cookie', 'a=1']]);
    const first = [...h];
    h.append('set-cookie', 'b=2');
    const second = [...h];
    h.set('Set-Cookie', 'c=3');
    const third = [h.getSetCookie(), [...h]];
    h.delete('set-cookie');
    return [first, second, third, h.getSetCookie(), h.has('set-cookie')];
  },
  'from another Headers, either kind': ({ Headers }) => {
    const sources = [new FetchHeaders({ a: '1', 'set-cookie': 'x=1' }), new globalThis.Headers({ b: '2' })];
    sources[0]!.append('set-cookie', 'y=2');
    return sources.map((source) => [...new Headers(source as unknown as Headers)]);
  },
  'values trimmed of HTTP whitespace, names sorted by code unit': ({ Headers }) => {
    const h = new Headers();
    for (const name of ['b', 'a', 'A-c', 'a-b', 'x_y', '1', '~', 'Z']) h.append(name, ` \t${name} value\r\n `);
    h.set('mid', 'a \t b');
    return [...h];
  },
  'set takes the new case, append keeps the first': ({ Headers }) => {
    const h = new Headers({ 'X-Case': '1' });
    h.append('x-case', '2');
    const appended = h.get('X-CASE');
    h.set('x-CASE', '3');
    return [appended, h.get('x-case'), [...h]];
  },
  'invalid name': ({ Headers }) => new Headers().append('a b', 'x'),
  'empty name': ({ Headers }) => new Headers().set('', 'x'),
  'invalid value (LF inside)': ({ Headers }) => new Headers().append('a', 'x\ny'),
  'invalid value (NUL)': ({ Headers }) => new Headers({ a: 'x\0y' }),
  'invalid name in get, has, delete': ({ Headers }) => {
    const h = new Headers();
    return [() => h.get('a b'), () => h.has('(x)'), () => h.delete('a:b')].map((f) => {
      try {
        return f();
      } catch (error) {
        return (error as Error).message;
      }
    });
  },
  'a character above U+00FF': ({ Headers }) => new Headers({ a: '\u0100' }),
  'a pair of three': ({ Headers }) => new Headers([['a', 'b', 'c']] as unknown as [string, string][]),
  'a string as init': ({ Headers }) => new Headers('x' as unknown as HeadersInit),
  'null as init': ({ Headers }) => new Headers(null as unknown as HeadersInit),
  'missing arguments': ({ Headers }) => (new Headers().get as () => string)(),
  'forEach with a non-function': ({ Headers }) => new Headers().forEach(1 as unknown as () => void),
  'forEach arguments and thisArg': ({ Headers }) => {
    const h = new Headers({ b: '2', a: '1' });
    const seen: unknown[] = [];
    const self = { tag: 'me' };
    h.forEach(function (this: unknown, value, name, parent) {
      seen.push([value, name, parent === h, this === self]);
    }, self);
    return seen;
  },
  'changes made while iterating are seen': ({ Headers }) => {
    const h = new Headers({ b: '2', d: '4' });
    const seen: string[] = [];
    for (const [name] of h) {
      seen.push(name);
      if (name === 'b') {
        h.append('c', '3');
        h.delete('d');
        h.append('e', '5');
      }
    }
    return seen;
  },
  'brand checks': ({ Headers }) => Headers.prototype.get.call({}, 'a'),
  'toString tags and the iterator prototype': ({ Headers }) => {
    const h = new Headers({ a: '1' });
    const iterator = h.entries();
    return [
      Object.prototype.toString.call(h),
      Object.prototype.toString.call(iterator),
      iterator[Symbol.iterator]() === iterator,
      (iterator as unknown as { toArray(): unknown[] }).toArray(),
      Headers.name,
    ];
  },
  'util.inspect': ({ Headers }) =>
    inspect(
      new Headers([
        ['b', '1'],
        ['A', '2'],
        ['set-cookie', 'x'],
        ['set-cookie', 'y'],
      ]),
    ),
  'for...in lists the members': ({ Headers }) => {
    const keys: string[] = [];
    for (const key in new Headers()) keys.push(key);
    return keys.sort();
  },
};

describe('FetchHeaders does what Node’s Headers does', () => {
  for (const [name, scenario] of Object.entries(HEADERS_SCENARIOS)) it(name, () => same(scenario));

  it('instanceof: its own and Node’s Headers yes, a plain object no, without looking up Node’s class for it', () => {
    expect(new FetchHeaders() instanceof FetchHeaders).toBe(true);
    expect(new globalThis.Headers() instanceof FetchHeaders).toBe(true);
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'Headers')!;
    let lookups = 0;
    Object.defineProperty(globalThis, 'Headers', { configurable: true, get: () => (lookups++, descriptor.value ?? descriptor.get!()) });
    try {
      expect({} instanceof FetchHeaders).toBe(false);
      expect([['a', 'b']] instanceof FetchHeaders).toBe(false);
      expect(null instanceof (FetchHeaders as unknown as typeof Headers)).toBe(false);
      expect(lookups).toBe(0);
    } finally {
      Object.defineProperty(globalThis, 'Headers', descriptor);
    }
  });

  it('Node’s fetch machinery takes it as HeadersInit, set-cookie values apart', () => {
    const ours = new FetchHeaders({ 'x-a': '1' });
    ours.append('set-cookie', 'a=1');
    ours.append('set-cookie', 'b=2');
    const node = new globalThis.Headers(ours as unknown as Headers);
    expect(node.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(new globalThis.Response('x', { headers: ours as unknown as Headers }).headers.get('x-a')).toBe('1');
  });
});

const bytes = (...values: number[]) => new Uint8Array(values);
const describeResponse = async (r: Response) => ({
  status: r.status,
  ok: r.ok,
  statusText: r.statusText,
  type: r.type,
  url: r.url,
  redirected: r.redirected,
  headers: [...r.headers],
  hasBody: r.body !== null,
  bodyUsed: r.bodyUsed,
  text: await r.text(),
  usedAfter: r.bodyUsed,
});

const RESPONSE_SCENARIOS: Record<string, (c: { Response: ResponseClass; Headers: HeadersClass }) => unknown> = {
  'text body and its defaults': ({ Response }) => describeResponse(new Response('hé ✓')),
  'no body': ({ Response }) => describeResponse(new Response()),
  'null body with 204': ({ Response }) => describeResponse(new Response(null, { status: 204, statusText: 'No Content' })),
  'a body with 204': ({ Response }) => new Response('x', { status: 204 }),
  'a body with 304': ({ Response }) => new Response('', { status: 304 }),
  'status 199': ({ Response }) => new Response('x', { status: 199 }),
  'status 600': ({ Response }) => new Response('x', { status: 600 }),
  'status wraps as an unsigned short': ({ Response }) => new Response('x', { status: 65536 + 201 }).status,
  'status from a string': ({ Response }) => new Response('x', { status: '404' as unknown as number }).ok,
  'statusText with LF': ({ Response }) => new Response('x', { statusText: 'a\nb' }),
  'statusText with obs-text': ({ Response }) => new Response('x', { statusText: 'caf\u00e9' }).statusText,
  'init that is not an object': ({ Response }) => new Response('x', 5 as unknown as ResponseInit),
  'given content-type wins': ({ Response }) => [...new Response('x', { headers: { 'Content-Type': 'application/json' } }).headers],
  'headers of the init are checked': ({ Response }) => new Response('x', { headers: { 'a b': '1' } }),
  json: ({ Response }) => new Response('{"a":[1,{"b":null}]}').json(),
  'bad json': ({ Response }) => new Response('{"a":').json(),
  'arrayBuffer and bytes': async ({ Response }) => {
    const buffer = await new Response(bytes(1, 2, 3)).arrayBuffer();
    const view = await new Response(bytes(4, 5)).bytes();
    return [buffer instanceof ArrayBuffer, [...new Uint8Array(buffer)], view instanceof Uint8Array, [...view]];
  },
  'blob takes the content type': async ({ Response }) => {
    const blob = await new Response('abc', { headers: { 'content-type': 'Text/Plain; Charset=UTF-8' } }).blob();
    return [blob.type, blob.size, await blob.text()];
  },
  'a leading BOM is dropped once, bad UTF-8 replaced': async ({ Response }) => [
    await new Response(bytes(0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x41)).text(),
    await new Response(bytes(0x41, 0xff, 0xc3)).text(),
  ],
  'read twice': async ({ Response }) => {
    const r = new Response('x');
    await r.text();
    return r.json();
  },
  'bytes are copied when the Response is made': async ({ Response }) => {
    const source = bytes(1, 2, 3, 4);
    const r = new Response(source.subarray(1, 3));
    source[1] = 9;
    return [...(await r.bytes())];
  },
  'a stream body, chunk by chunk': async ({ Response }) => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('he'));
        controller.enqueue(new TextEncoder().encode('llo'));
        controller.close();
      },
    });
    const r = new Response(stream, { status: 201 });
    const reader = r.body!.getReader();
    const chunks: string[] = [];
    for (let part = await reader.read(); !part.done; part = await reader.read()) chunks.push(new TextDecoder().decode(part.value));
    return [chunks, r.bodyUsed, [...r.headers]];
  },
  'a locked stream': ({ Response }) => {
    const stream = new ReadableStream();
    stream.getReader();
    return new Response(stream);
  },
  'a chunk that is not bytes': ({ Response }) => new Response(new ReadableStream({ start: (c) => (c.enqueue('text'), c.close()) })).text(),
  'form params and a Blob set their content type': ({ Response }) => [
    new Response(new URLSearchParams({ a: '1 2' })).headers.get('content-type'),
    new Response(new Blob(['x'], { type: 'image/png' })).headers.get('content-type'),
    new Response(new Blob(['x'])).headers.get('content-type'),
  ],
  'clone: both read the same bytes': async ({ Response }) => {
    const r = new Response('cloned', { status: 202, headers: { 'x-a': '1' } });
    const c = r.clone();
    c.headers.set('x-b', '2');
    return [await r.text(), await c.text(), c.status, [...r.headers], [...c.headers]];
  },
  'clone after reading': async ({ Response }) => {
    const r = new Response('x');
    await r.text();
    return r.clone();
  },
  'an existing Response as init (status, statusText, headers)': async ({ Response }) => {
    const original = new Response('{}', { status: 418, statusText: 'Teapot', headers: { 'x-a': '1' } });
    const replaced = new Response('new', original);
    return [replaced.status, replaced.statusText, [...replaced.headers]];
  },
  'its headers can be changed': ({ Response }) => {
    const r = new Response('x');
    r.headers.set('x-a', '1');
    return r.headers.get('x-a');
  },
  'toString tag and inspect': ({ Response }) => [
    Object.prototype.toString.call(new Response('x')),
    Response.name,
    inspect(new Response('x', { status: 201, headers: { a: '1' } })),
  ],
  'brand checks': ({ Response }) => Object.getOwnPropertyDescriptor(Response.prototype, 'status')!.get!.call({}),
  'statics are Node’s': async ({ Response }) => {
    const json = Response.json({ a: 1 }, { status: 201 });
    return [
      json.status,
      json.headers.get('content-type'),
      await json.text(),
      Response.error().type,
      Response.redirect('http://x.test/', 301).headers.get('location'),
    ];
  },
};

describe('FetchResponse does what Node’s Response does', () => {
  for (const [name, scenario] of Object.entries(RESPONSE_SCENARIOS)) it(name, () => same(scenario));

  it('a kind of body it does not build (FormData) gives Node’s Response, which both instanceof accept', async () => {
    const form = new globalThis.FormData();
    form.append('a', '1');
    const r = new FetchResponse(form as unknown as BodyInit) as unknown as Response;
    expect(r instanceof globalThis.Response).toBe(true);
    expect(r instanceof FetchResponse).toBe(true);
    expect(r.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(await r.text()).toContain('name="a"');
  });

  it('instanceof: a plain object no; LazyFormData makes and recognises Node’s FormData', () => {
    expect({ status: 200, headers: {} } instanceof FetchResponse).toBe(false);
    expect(new globalThis.Response('x') instanceof FetchResponse).toBe(true);
    const form = new (LazyFormData as unknown as typeof FormData)();
    expect(form).toBeInstanceOf(globalThis.FormData);
    expect(form instanceof LazyFormData).toBe(true);
    expect({} instanceof LazyFormData).toBe(false);
    expect(new URLSearchParams() instanceof LazyFormData).toBe(false);
  });

  it('LazyReadableStream makes Node’s streams and recognises them, and nothing else, with instanceof', async () => {
    const made = new (LazyReadableStream as unknown as typeof ReadableStream<string>)({ start: (controller) => (controller.enqueue('a'), controller.close()) });
    expect(made).toBeInstanceOf(globalThis.ReadableStream);
    expect(made instanceof LazyReadableStream).toBe(true);
    expect(await new Response(made.pipeThrough(new TextEncoderStream())).text()).toBe('a');
    const from = (LazyReadableStream as unknown as typeof ReadableStream).from(['x', 'y']);
    expect(from).toBeInstanceOf(globalThis.ReadableStream);
    const chunks: unknown[] = [];
    for await (const chunk of from) chunks.push(chunk);
    expect(chunks).toEqual(['x', 'y']);
    expect(new Response('body').body instanceof LazyReadableStream).toBe(true);
    for (const other of ['{"a":1}', new Uint8Array(1), {}, { getReader() {} }, null, undefined, new Blob(['x'])])
      expect(other instanceof LazyReadableStream).toBe(false);
    expect(LazyReadableStream.name).toBe('ReadableStream');
  });
});
