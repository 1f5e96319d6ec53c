import { OpenAPIHono } from '@hono/zod-openapi';
import { BeansError, VERSION } from '@beans/core';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import {
  answerRoute,
  createSessionRoute,
  deleteSessionRoute,
  eventsRoute,
  getSessionRoute,
  healthRoute,
  interruptRoute,
  listSessionsRoute,
  openApiRoute,
  openTerminalRoute,
  sendMessageRoute,
  terminalInputRoute,
  terminalOutputRoute,
  terminalResizeRoute,
  closeTerminalRoute,
} from './api-schema.js';
import { streamLog } from './sse.js';
import { MAX_BODY_BYTES, allowedHostnames, bodyWithinLimit, hostAndOriginGuard, tokenGuard } from './guard.js';
import type { SessionSummary } from './hosted-session.js';
import type { SessionTable } from './session-table.js';

/** The runners' background sessions (a database configured), listed, followed and answered beside the server's own. */
export interface RunnerSessionsView {
  list(): Promise<SessionSummary[]>;
  get(id: string): Promise<SessionSummary | undefined>;
  /** Their events as server-sent events after the event numbered `after`, until the session ends. */
  events(c: Context, id: string, after: number): Response;
  answer(
    id: string,
    requestId: string,
    answer: { behavior: 'allow' | 'deny'; message?: string; always?: boolean },
  ): Promise<'answered' | 'already-answered' | 'unknown'>;
}

export interface ServerAppOptions {
  token: string;
  /** The address the server is bound to (Host headers naming it are this server's). */
  host: string;
  /** More names the server answers to (a reverse proxy's). */
  allowHosts?: readonly string[];
  sessions: SessionTable;
  /** The web view's files, served at `/` without the token (they hold no data); absent until built. */
  web?: (path: string, request: Request) => Response | undefined;
  /** Background sessions on runners, when a database is configured. */
  runners?: RunnerSessionsView;
  /** More routes of the API v1 (the web view's), registered behind the same guards. */
  routes?: (app: OpenAPIHono) => void;
}

/** The HTTP API v1 over a session table: routing and validation from the OpenAPI routes, the guards before them. */
export function createServerApp(options: ServerAppOptions): OpenAPIHono {
  const { sessions } = options;
  const app = new OpenAPIHono({
    // A request the schema refuses: 400 with what was wrong, as JSON.
    defaultHook: (result, c) => {
      if (!result.success)
        return c.json({ error: `Bad request: ${result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ')}` }, 400);
    },
  });
  app.use('*', hostAndOriginGuard(allowedHostnames(options.host, options.allowHosts)));
  const needsToken = tokenGuard(options.token);
  const tokenUnlessHealth: MiddlewareHandler = async (c, next) => (c.req.path === '/v1/health' ? next() : needsToken(c, next));
  app.use('/v1/*', tokenUnlessHealth);
  app.use('/v1/*', bodyWithinLimit(MAX_BODY_BYTES));
  app.notFound((c) => c.json({ error: `No route ${c.req.method} ${c.req.path}.` }, 404));
  app.onError((error, c) => (error instanceof HTTPException ? error.getResponse() : c.json({ error: error.message }, 500)));

  const missing = (id: string) => ({ error: `No session ${id} on this server.` });
  const { runners } = options;
  const onRunner = (id: string) => ({
    error: `Session ${id} runs on a runner: answer its questions here, or follow it; it takes no messages, interrupts or terminals.`,
  });

  app.openapi(healthRoute, (c) => c.json({ ok: true as const, version: VERSION }, 200));

  app.openapi(createSessionRoute, async (c) => {
    try {
      const session = await sessions.start(c.req.valid('json'));
      return c.json({ id: session.id }, 201);
    } catch (error) {
      if (!(error instanceof BeansError)) throw error;
      // Bad input (2) is the client's mistake; configuration and keys (3) are the server's to fix.
      return c.json({ error: error.message }, error.exitCode === 2 ? 400 : 422);
    }
  });

  app.openapi(listSessionsRoute, async (c) => {
    const own = sessions.list().map((session) => session.summary());
    const background = runners ? await runners.list() : [];
    return c.json({ sessions: [...own, ...background].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)) }, 200);
  });

  app.openapi(getSessionRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id)?.summary() ?? (await runners?.get(id));
    return session ? c.json(session, 200) : c.json(missing(id), 404);
  });

  app.openapi(deleteSessionRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id);
    if (!session && (await runners?.get(id))) return c.json(onRunner(id), 409);
    if (!session) return c.json(missing(id), 404);
    await session.close();
    return c.json(session.summary(), 200);
  });

  app.openapi(sendMessageRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id);
    if (!session && (await runners?.get(id))) return c.json(onRunner(id), 409);
    if (!session) return c.json(missing(id), 404);
    if (session.state === 'done') return c.json({ error: `Session ${id} was stopped; start it again with POST /v1/sessions {"resume": "${id}"}.` }, 409);
    const { text, images = [] } = c.req.valid('json');
    void session.send(
      text,
      images.map((image) => ({ type: 'image' as const, mimeType: image.media_type, data: image.data })),
    );
    return c.json({ accepted: true as const }, 202);
  });

  app.openapi(answerRoute, async (c) => {
    const { id, request_id: requestId } = c.req.valid('param');
    const session = sessions.get(id);
    if (!session && !runners) return c.json(missing(id), 404);
    const answered = session ? session.answer(requestId, c.req.valid('json')) : await runners!.answer(id, requestId, c.req.valid('json'));
    if (answered === 'answered') return c.json({ ok: true as const }, 200);
    if (answered === 'already-answered') return c.json({ error: `Question ${requestId} was already answered.` }, 409);
    return c.json({ error: `No question ${requestId} in session ${id}.` }, 404);
  });

  app.openapi(interruptRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id);
    if (!session && (await runners?.get(id))) return c.json(onRunner(id), 409);
    if (!session) return c.json(missing(id), 404);
    session.interrupt();
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(eventsRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id);
    const header = Number(c.req.header('last-event-id'));
    const after = c.req.valid('query').after ?? (Number.isInteger(header) && header > 0 ? header : 0);
    if (!session && runners && (await runners.get(id))) return runners.events(c, id, after);
    if (!session) return c.json(missing(id), 404);
    return streamLog(c, session.log, after);
  });

  app.openapi(openTerminalRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id);
    if (!session && (await runners?.get(id))) return c.json(onRunner(id), 409);
    if (!session) return c.json(missing(id), 404);
    if (session.state === 'done') return c.json({ error: `Session ${id} was stopped.` }, 409);
    const { columns, rows, noColor } = c.req.valid('json');
    const terminal = await session.openTerminal({ columns, rows }, { noColor });
    return c.json({ terminal_id: terminal.id }, 201);
  });

  const terminalOf = (id: string, terminalId: string) => sessions.get(id)?.terminal(terminalId);
  const noTerminal = (id: string, terminalId: string) => ({ error: `No terminal ${terminalId} on session ${id}.` });

  app.openapi(terminalOutputRoute, (c) => {
    const { id, terminal_id: terminalId } = c.req.valid('param');
    const terminal = terminalOf(id, terminalId);
    // The attaching terminal went away (its connection closed): so does its view.
    return terminal ? streamLog(c, terminal.output, 0, () => terminal.close()) : c.json(noTerminal(id, terminalId), 404);
  });

  app.openapi(terminalInputRoute, (c) => {
    const { id, terminal_id: terminalId } = c.req.valid('param');
    const terminal = terminalOf(id, terminalId);
    if (!terminal) return c.json(noTerminal(id, terminalId), 404);
    terminal.input(c.req.valid('json').data);
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(terminalResizeRoute, (c) => {
    const { id, terminal_id: terminalId } = c.req.valid('param');
    const terminal = terminalOf(id, terminalId);
    if (!terminal) return c.json(noTerminal(id, terminalId), 404);
    const { columns, rows } = c.req.valid('json');
    terminal.resize(columns, rows);
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(closeTerminalRoute, (c) => {
    const { id, terminal_id: terminalId } = c.req.valid('param');
    const terminal = terminalOf(id, terminalId);
    if (!terminal) return c.json(noTerminal(id, terminalId), 404);
    terminal.close();
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(openApiRoute, (c) =>
    c.json(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: { title: 'Beans session server', version: '1', description: 'Sessions that outlive the terminal: start, watch, steer and answer them.' },
        servers: [{ url: '/' }],
      }) as unknown as Record<string, unknown>,
      200,
    ),
  );
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });

  options.routes?.(app);
  app.get('*', (c) => options.web?.(c.req.path, c.req.raw) ?? c.json({ error: `No route GET ${c.req.path}.` }, 404));
  return app;
}
