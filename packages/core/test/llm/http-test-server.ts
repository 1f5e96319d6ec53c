// Real node:http servers on 127.0.0.1 for the tests of Beans' own fetch (http-fetch.ts,
// provider-fetch.ts), with Node's fetch stubbed to throw: a request that went through undici would
// make those tests prove nothing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, vi } from 'vitest';

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
