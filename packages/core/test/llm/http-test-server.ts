// Real node:http servers on 127.0.0.1 for the tests of Beans' own fetch (http-fetch.ts,
// provider-fetch.ts), with Node's fetch stubbed to throw: a request that went through undici would
// make those tests prove nothing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { classifyError } from '../../src/llm/failures.js';
import type { FetchFunction } from '../../src/llm/http-fetch.js';

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Servers the test file started; closed after each test. */
export const servers: Server[] = [];

/** Registers the stub of Node's fetch and the closing of `servers` around every test of the file. */
export function withLocalServersOnly(): void {
  beforeEach(() => {
    vi.stubGlobal('fetch', () => Promise.reject(new Error('Node fetch was called')));
  });
  afterEach(async () => {
    vi.unstubAllGlobals();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
}

/** A server answering with `handler` once the request body is read; `closed` resolves when a request's socket closes. */
export async function serve(handler: Handler): Promise<{ url: string; closed: () => Promise<void> }> {
  let socketClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (socketClosed = resolve));
  const server = createServer((req, res) => {
    req.socket.once('close', socketClosed);
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => handler(req, res, Buffer.concat(parts).toString()));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed: () => closed };
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** What a streamed answer must do through either fetch (http-fetch.ts's, provider-fetch.ts's): the same cases for both. */
export function streamedBodyCases(fetch: FetchFunction): void {
  it('hands each chunk of a streamed body over as it arrives (NDJSON, SSE)', async () => {
    let sendRest: () => void = () => {};
    const rest = new Promise<void>((resolve) => (sendRest = resolve));
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"n":1}\n\n');
      void rest.then(() => res.end('data: {"n":2}\n\n'));
    });
    const reader = (await fetch(url)).body!.getReader();
    const decoder = new TextDecoder();
    // The server sends the second event only after the client has read the first.
    expect(decoder.decode((await reader.read()).value)).toBe('data: {"n":1}\n\n');
    sendRest();
    expect(decoder.decode((await reader.read()).value)).toBe('data: {"n":2}\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('an abort mid-stream errors the body with the signal reason and closes the socket', async () => {
    const { url, closed } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"message":"one"}\n');
    });
    const controller = new AbortController();
    const reader = (await fetch(url, { signal: controller.signal })).body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"message":"one"}\n');
    controller.abort();
    const error = await rejection(reader.read());
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(classifyError(error).kind).toBe('aborted');
    await closed();
  });
}
