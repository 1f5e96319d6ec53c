import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { UsageError } from '@beans/core';
import type { BeansMcpConnection } from '@beans/core/mcp-server';
import { MAX_BODY_BYTES, allowedHostnames, bodyWithinLimit, hostAndOriginGuard, tokenGuard } from '../server/guard.js';

const HOST = '127.0.0.1';
const PATH = '/mcp';

export interface HttpServeOptions {
  /** 0: any free port. */
  port: number;
  /** The token clients send as `Authorization: Bearer`; default a fresh random one, printed once. */
  token?: string;
  /** A new connection (its own MCP server) for each MCP session a client initializes. */
  connect(): BeansMcpConnection;
  warn(text: string): void;
}

export interface ServedHttp {
  url: string;
  /** Settles when the server has stopped. */
  closed: Promise<void>;
  close(): Promise<void>;
}

interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  connection: BeansMcpConnection;
}

/**
 * `beans mcp serve --http PORT`: Streamable HTTP on 127.0.0.1 only, behind the fences of `beans serve`
 * (server/guard.ts), in this order and before anything reaches the MCP SDK: a Host or Origin that
 * is not this server's is 403 (DNS rebinding: a page whose name resolves to 127.0.0.1 sends its own
 * Host, a browser its page's Origin), a missing or wrong bearer token 401, a body over 1 MB 413
 * (never parsed). No response carries CORS headers, so no web page can read one.
 */
export async function serveMcpHttp(options: HttpServeOptions): Promise<ServedHttp> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const sessions = new Map<string, McpSession>();

  const app = new Hono();
  app.use('*', hostAndOriginGuard(allowedHostnames(HOST)));
  app.use('*', tokenGuard(token));
  app.use(PATH, bodyWithinLimit(MAX_BODY_BYTES));
  app.on(['GET', 'POST', 'DELETE'], PATH, async (c) => {
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      try {
        parsedBody = await c.req.json();
      } catch {
        return jsonRpcError(400, -32700, 'Parse error: the body is not JSON.');
      }
    }
    const id = c.req.header('mcp-session-id');
    if (id !== undefined) {
      const session = sessions.get(id);
      if (!session) return jsonRpcError(404, -32001, 'Session not found: initialize a new one.');
      return session.transport.handleRequest(c.req.raw, { parsedBody });
    }
    if (c.req.method !== 'POST') return jsonRpcError(400, -32000, 'Bad request: no Mcp-Session-Id header; initialize first.');
    // A request without a session is an initialize (else the SDK answers 400 and the transport goes).
    const connection = options.connect();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, connection }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void connection.close().catch(() => undefined);
    };
    await connection.server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { parsedBody });
    if (!transport.sessionId) await connection.close();
    return response;
  });
  app.all(PATH, (c) => c.json({ error: 'Method not allowed: GET, POST or DELETE.' }, 405, { allow: 'GET, POST, DELETE' }));
  app.notFound((c) => c.json({ error: `Not found: the MCP endpoint is ${PATH}.` }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.warn(`MCP request failed: ${error.message}`);
    return c.json({ error: 'Internal error.' }, 500);
  });

  const server = serve({ fetch: app.fetch, hostname: HOST, port: options.port });
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('listening', () => resolve(server.address() as AddressInfo));
    server.once('error', reject);
  }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      error.code === 'EADDRINUSE'
        ? `Port ${options.port} is in use; choose another with --http PORT (0 picks a free one).`
        : `Cannot listen on ${HOST}: ${error.message}.`,
    );
  });
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  const url = `http://${HOST}:${address.port}${PATH}`;
  // The token is printed once, here; with BEANS_MCP_TOKEN the user holds it already.
  process.stdout.write(
    options.token
      ? `Beans is serving MCP on ${url} (token from BEANS_MCP_TOKEN)\n`
      : `Beans is serving MCP on ${url}#token=${token}\nMCP clients send the token as the header "Authorization: Bearer <token>".\n`,
  );
  return {
    url,
    closed,
    close: async () => {
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close()));
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
