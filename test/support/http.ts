/** The HTTP plumbing shared by the scripted servers. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RecordedRequest, RequestKind, ScriptFault } from './script.ts';

export type Exchange = {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
};

export type Router = {
  kindOf(method: string, path: string): RequestKind;
  handle(exchange: Exchange): Promise<void>;
};

export async function listen(
  router: Router,
  port: number,
  requests: RecordedRequest[],
  onRequest?: (request: RecordedRequest) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = req.url ?? '/';
      const record: RecordedRequest = {
        method: req.method ?? 'GET',
        path,
        headers: flatHeaders(req),
        body: parseJson(raw),
        bytes: Buffer.byteLength(raw),
        time: performance.timeOrigin + performance.now(),
        kind: router.kindOf(req.method ?? 'GET', path.split('?')[0]),
      };
      requests.push(record);
      onRequest?.(record);
      await router.handle({ req, res, record });
    })().catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `scripted server bug: ${String(error)}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('scripted server: no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw: string): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Serves a fault: status 0 drops the connection, anything else is an error response. */
export function sendFault(res: ServerResponse, fault: ScriptFault, defaultBody: unknown): void {
  if (fault.status === 0) {
    res.socket?.destroy();
    return;
  }
  sendJson(res, fault.status, fault.body ?? defaultBody, fault.headers);
}

/**
 * Streams `chunks` with a pause before each one after the first; `cutAfter` destroys the socket
 * after that many chunks, so the client sees a connection that dies mid-body. Stops quietly when
 * the client goes away (an aborted request).
 */
export async function streamChunks(
  res: ServerResponse,
  chunks: string[],
  options: { contentType: string; delayMs?: number; cutAfter?: number },
): Promise<void> {
  let clientGone = false;
  res.on('close', () => (clientGone = true));
  if (options.cutAfter === 0) {
    res.socket?.destroy();
    return;
  }
  res.writeHead(200, { 'content-type': options.contentType, 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0 && options.delayMs) await sleep(options.delayMs);
    if (clientGone) return;
    await new Promise<void>((resolve) => res.write(chunks[i], () => resolve()));
    if (options.cutAfter !== undefined && i + 1 >= options.cutAfter) {
      res.socket?.destroy();
      return;
    }
  }
  if (options.cutAfter !== undefined) {
    res.socket?.destroy(); // asked to cut after more chunks than there are: never finish the body
    return;
  }
  res.end();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
