import type { MiddlewareHandler } from 'hono';
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
