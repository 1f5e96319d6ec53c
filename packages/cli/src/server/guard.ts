import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';

/** Names a browser may use for this server: loopback, and the address it is bound to, on any port (an SSH tunnel maps it). */
export function allowedHostnames(boundHost: string, extra: readonly string[] = []): Set<string> {
  return new Set(['localhost', '127.0.0.1', '[::1]', bracketed(boundHost), ...extra.map((name) => name.toLowerCase())]);
}

/**
 * DNS rebinding and cross-site requests: a `Host` that is not this server's (a page of evil.example
 * whose name now resolves to 127.0.0.1) or an `Origin` of another site gets 403, before the token
 * is even looked at. Programs send no Origin; browsers always do on cross-origin requests.
 */
export function hostAndOriginGuard(hostnames: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host');
    const hostname = host ? hostnameOf(host) : undefined;
    if (!hostname || !hostnames.has(hostname)) return c.json({ error: 'This server answers only requests addressed to it (Host header).' }, 403);
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== `http://${host}`) return c.json({ error: 'Requests from other sites are refused (Origin header).' }, 403);
    await next();
  };
}

/** `Authorization: Bearer TOKEN`, compared in constant time; anything else is 401 and says nothing more. */
export function tokenGuard(token: string): MiddlewareHandler {
  const unauthorized = () => Response.json({ error: 'Unauthorized: send Authorization: Bearer <token>.' }, { status: 401 });
  return bearerAuth({
    token,
    noAuthenticationHeader: { message: unauthorized },
    invalidAuthenticationHeader: { message: unauthorized },
    invalidToken: { message: unauthorized },
  });
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host.toLowerCase();
}

/** The largest request body either server reads; a larger one is answered 413 and never parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How much of a body over the limit is still read, and dropped, before the 413: a client that sends
 * its whole body before it reads (Node's http.request, fetch) would otherwise see the connection cut
 * instead of the answer. Past this the connection is cut.
 */
const DRAIN_BYTES = 16 * 1024 * 1024;

/** Hono's bodyLimit, but the rest of a body over the limit is read (up to DRAIN_BYTES) so the 413 reaches the client. */
export function bodyWithinLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    if (Number(c.req.header('content-length') ?? 0) > DRAIN_BYTES) return tooLarge(c, maxBytes);
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > DRAIN_BYTES) {
        await reader.cancel();
        return tooLarge(c, maxBytes);
      }
      if (size <= maxBytes) chunks.push(value);
    }
    if (size > maxBytes) return tooLarge(c, maxBytes);
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
    return next();
  };
}

function tooLarge(c: Context, maxBytes: number): Response {
  return c.json({ error: `The body is over ${maxBytes / 1024 / 1024} MB (${maxBytes} bytes).` }, 413);
}
