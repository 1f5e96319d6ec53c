/**
 * A web server on 127.0.0.1 for web_fetch tests: routes by path (query ignored), records every
 * request path and the body bytes it sent. Plain erasable TypeScript, like the scripted servers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type PageHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface PageServer {
  base: string;
  url(path: string): string;
  /** Request paths in arrival order (with their query). */
  hits: string[];
  /** How many requests reached a route's path (query ignored). */
  count(path: string): number;
  /** Body bytes written so far, over all responses. */
  bytesSent(): number;
  close(): Promise<void>;
}

export async function startPageServer(routes: Record<string, PageHandler>): Promise<PageServer> {
  const hits: string[] = [];
  let sent = 0;
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    hits.push(url);
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      sent += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Buffer).length;
      return write(chunk, ...rest);
    }) as typeof res.write;
    const route = routes[url.split('?')[0]!];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: (path) => `${base}${path}`,
    hits,
    count: (path) => hits.filter((hit) => hit.split('?')[0] === path).length,
    bytesSent: () => sent,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
