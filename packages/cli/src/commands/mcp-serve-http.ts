import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UsageError } from '@beans/core';
import type { BeansMcpConnection } from '@beans/core/mcp-server';

/** The largest request body served; a larger one is answered 413 and never parsed. */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * How much of a body over the limit is still read (and dropped) so the client, which sends it all
 * before it reads, gets the 413; beyond this the connection is cut.
 */
const DRAIN_BYTES = 16 * 1024 * 1024;
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
  transport: StreamableHTTPServerTransport;
  connection: BeansMcpConnection;
}

/**
 * `beans mcp serve --http PORT`: Streamable HTTP on 127.0.0.1 only. Before anything reaches the MCP
 * SDK, every request passes the fences a local server with a token needs: a Host or Origin that is
 * not this server's is 403 (DNS rebinding: a web page whose name resolves to 127.0.0.1 sends its own
 * Host, and a browser its page's Origin), a missing or wrong bearer token 401, a body over 1 MB
 * 413 (never parsed). No response carries CORS headers, so no web page can read one.
 */
export async function serveMcpHttp(options: HttpServeOptions): Promise<ServedHttp> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const tokenDigest = digest(token);
  const sessions = new Map<string, McpSession>();
  let port = options.port;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refused = refusal(req, port, tokenDigest);
    if (refused) return answer(res, refused.status, refused.message, refused.headers);
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req);
      if (read === undefined) return answer(res, 413, `Request body over ${MAX_BODY_BYTES} bytes.`);
      try {
        body = JSON.parse(read);
      } catch {
        return jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON.');
      }
    }
    const id = header(req, 'mcp-session-id');
    if (id !== undefined) {
      const session = sessions.get(id);
      if (!session) return jsonRpcError(res, 404, -32001, 'Session not found: initialize a new one.');
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') return jsonRpcError(res, 400, -32000, 'Bad request: no Mcp-Session-Id header; initialize first.');
    // A request without a session is an initialize (else the SDK answers 400 and the transport goes).
    const connection = options.connect();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, connection }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void connection.close();
    };
    await connection.server.connect(transport);
    await transport.handleRequest(req, res, body);
    if (!transport.sessionId) await connection.close();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.warn(`MCP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) answer(res, 500, 'Internal error.');
      else res.destroy();
    });
  });
  const closed = new Promise<void>((resolve) => server.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new UsageError(`Port ${options.port} is in use; choose another with --http PORT (0 picks a free one).`) : error),
    );
    server.listen(options.port, HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://${HOST}:${port}${PATH}`;
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
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** The fences, in order: who is asking (Host, Origin), whether they hold the token, what they send. */
function refusal(req: IncomingMessage, port: number, tokenDigest: Buffer): Refusal | undefined {
  const ours = [`${HOST}:${port}`, `localhost:${port}`];
  const host = header(req, 'host')?.toLowerCase();
  if (host === undefined || !ours.includes(host)) return { status: 403, message: 'Forbidden: this server answers only to its own address.' };
  const origin = header(req, 'origin');
  if (origin !== undefined && !ours.some((address) => origin.toLowerCase() === `http://${address}`)) {
    return { status: 403, message: 'Forbidden: requests from web pages are refused.' };
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
  if (bearer === undefined || !timingSafeEqual(digest(bearer), tokenDigest)) {
    return {
      status: 401,
      message: 'Unauthorized: send the token beans mcp serve printed as "Authorization: Bearer <token>".',
      headers: { 'www-authenticate': 'Bearer' },
    };
  }
  if (new URL(req.url ?? '/', `http://${HOST}`).pathname !== PATH) return { status: 404, message: `Not found: the MCP endpoint is ${PATH}.` };
  if (!['GET', 'POST', 'DELETE'].includes(req.method ?? '')) return { status: 405, message: 'Method not allowed.', headers: { allow: 'GET, POST, DELETE' } };
  if (Number(header(req, 'content-length') ?? 0) > DRAIN_BYTES) return { status: 413, message: `Request body over ${MAX_BODY_BYTES} bytes.` };
  return undefined;
}

/** The body as text; undefined when it passes MAX_BODY_BYTES (the rest is read and dropped, up to DRAIN_BYTES). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRAIN_BYTES) return req.destroy();
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Digests have one length, so comparing them takes the same time whatever the token sent. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function answer(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  // A refused request's body is not read on: the connection closes after the answer.
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...headers });
  res.end(`${message}\n`);
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
