import { createRoute, z } from '@hono/zod-openapi';

// The HTTP API v1, written once: these route definitions validate every request and make the
// OpenAPI 3.1 document (`GET /v1/openapi.json`), so the document cannot drift from the routes.

const ErrorBody = z.object({ error: z.string() }).openapi('Error');
const SessionState = z.enum(['running', 'waiting', 'idle', 'done', 'failed']).openapi('SessionState');
const Session = z
  .object({
    id: z.string(),
    cwd: z.string(),
    state: SessionState,
    title: z.string(),
    updatedAt: z.string().openapi({ format: 'date-time' }),
    exitCode: z.number().int().optional().openapi({ description: 'What a one-shot run of the last turn would exit with (0, 1, 2, 3, 4, 130)' }),
    runner: z.string().optional().openapi({ description: 'A background session on a runner: the runner holding it ("" while queued)' }),
    branch: z.string().optional().openapi({ description: 'A background session on a runner: the branch it pushes' }),
  })
  .openapi('Session');
const SessionId = z.object({ id: z.string().min(1).max(200) });
const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const refusals = {
  401: json(ErrorBody, 'No or wrong bearer token'),
  403: json(ErrorBody, 'A foreign Host or Origin header'),
};
const unknownSession = { 404: json(ErrorBody, 'No such session') };
const onRunner = { 409: json(ErrorBody, 'A background session on a runner (a database configured): it is followed and answered, not driven, from here') };
const bearer = [{ bearer: [] }];

export const healthRoute = createRoute({
  method: 'get',
  path: '/v1/health',
  summary: 'Whether the server answers (no token needed)',
  responses: { 200: json(z.object({ ok: z.literal(true), version: z.string() }), 'The server is up') },
});

export const openApiRoute = createRoute({
  method: 'get',
  path: '/v1/openapi.json',
  summary: 'This document',
  security: bearer,
  responses: { 200: json(z.object({}).passthrough(), 'The OpenAPI 3.1 document'), ...refusals },
});

export const createSessionRoute = createRoute({
  method: 'post',
  path: '/v1/sessions',
  summary: 'Start a session in a folder, optionally with its first message',
  security: bearer,
  request: {
    body: {
      required: true,
      ...json(
        z
          .object({
            cwd: z.string().min(1).openapi({ description: "The session's folder; its git root is the workspace" }),
            prompt: z.string().min(1).optional(),
            provider: z.string().min(1).optional(),
            model: z.string().min(1).optional(),
            permissionMode: z.enum(['default', 'acceptEdits', 'auto-edit', 'plan', 'bypassPermissions', 'yolo', 'dontAsk']).optional(),
            resume: z.string().min(1).optional().openapi({ description: 'A stored session to continue (its id or a prefix of it)' }),
            background: z.boolean().optional().openapi({ description: 'End the session once its first message is answered' }),
          })
          .strict(),
        'The new session',
      ),
    },
  },
  responses: {
    201: json(z.object({ id: z.string() }), 'Started'),
    400: json(ErrorBody, 'A bad request (a folder that does not exist, a bad setting)'),
    413: json(ErrorBody, 'A body over 1 MB'),
    422: json(ErrorBody, 'The session cannot start: no provider key, an unknown model, a stored session not found'),
    ...refusals,
  },
});

export const listSessionsRoute = createRoute({
  method: 'get',
  path: '/v1/sessions',
  summary: 'The sessions this server hosts',
  security: bearer,
  responses: { 200: json(z.object({ sessions: z.array(Session) }), 'Newest first'), ...refusals },
});

export const getSessionRoute = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}',
  summary: 'One session',
  security: bearer,
  request: { params: SessionId },
  responses: { 200: json(Session, 'The session'), ...unknownSession, ...refusals },
});

export const deleteSessionRoute = createRoute({
  method: 'delete',
  path: '/v1/sessions/{id}',
  summary: 'Stop a session (its file stays: `beans -r ID` resumes it)',
  security: bearer,
  request: { params: SessionId },
  responses: { 200: json(Session, 'Stopped'), ...onRunner, ...unknownSession, ...refusals },
});

export const sendMessageRoute = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/messages',
  summary: 'Send a message: a turn of its own, or steering for the running turn',
  security: bearer,
  request: {
    params: SessionId,
    body: {
      required: true,
      ...json(
        z
          .object({
            text: z.string().min(1),
            images: z
              .array(
                z
                  .object({
                    media_type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
                    data: z
                      .string()
                      .min(1)
                      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'base64'),
                  })
                  .strict(),
              )
              .max(20)
              .optional()
              .openapi({ description: 'Pictures sent with the words (base64), as the chat attaches a pasted picture' }),
          })
          .strict(),
        'The message',
      ),
    },
  },
  responses: {
    202: json(z.object({ accepted: z.literal(true) }), 'Accepted; what happens arrives on the event stream'),
    409: json(ErrorBody, 'The session was stopped'),
    413: json(ErrorBody, 'A body over 1 MB'),
    ...unknownSession,
    ...refusals,
  },
});

export const eventsRoute = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/events',
  summary: 'Server-sent events: each `data:` is one stream-json message (or a permission question), `id:` its number',
  security: bearer,
  request: {
    params: SessionId,
    query: z.object({ after: z.coerce.number().int().min(0).optional().openapi({ description: 'Replay from after this event (as Last-Event-ID)' }) }),
  },
  responses: {
    200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'The replay, then live events' },
    ...unknownSession,
    ...refusals,
  },
});

export const answerRoute = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/permissions/{request_id}',
  summary: 'Answer a permission question; the first answer wins',
  security: bearer,
  request: {
    params: SessionId.extend({ request_id: z.string().min(1).max(200) }),
    body: {
      required: true,
      ...json(
        z
          .object({
            behavior: z.enum(['allow', 'deny']),
            message: z.string().optional().openapi({ description: 'With deny: why, for the model' }),
            always: z.boolean().optional().openapi({ description: 'With allow: allow such calls for the rest of the session' }),
          })
          .strict(),
        'The answer',
      ),
    },
  },
  responses: {
    200: json(z.object({ ok: z.literal(true) }), 'Answered'),
    409: json(ErrorBody, 'Already answered (by another client, or withdrawn)'),
    ...unknownSession,
    ...refusals,
  },
});

export const interruptRoute = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/interrupt',
  summary: 'Stop the running turn (its commands are killed)',
  security: bearer,
  request: { params: SessionId },
  responses: { 200: json(z.object({ ok: z.literal(true) }), 'Stopped'), ...onRunner, ...unknownSession, ...refusals },
});

// `beans attach`: the chat drawn by the server for a terminal elsewhere; keys in, bytes out.
const TerminalId = SessionId.extend({ terminal_id: z.string().min(1).max(200) });
const TerminalSize = z.object({ columns: z.number().int().min(20).max(1000), rows: z.number().int().min(5).max(500) });

export const openTerminalRoute = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/terminals',
  summary: 'Open the chat on this session for a terminal of this size (`beans attach`)',
  security: bearer,
  request: {
    params: SessionId,
    body: { required: true, ...json(TerminalSize.extend({ noColor: z.boolean().optional() }).strict(), 'The terminal') },
  },
  responses: {
    201: json(z.object({ terminal_id: z.string() }), 'Opened; read its output next'),
    409: json(ErrorBody, 'The session was stopped'),
    ...unknownSession,
    ...refusals,
  },
});

export const terminalOutputRoute = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/terminals/{terminal_id}/output',
  summary: 'Server-sent events: `{"type":"output","data"}` to print as it is, then `{"type":"exit","code"}`; leaving closes the terminal',
  security: bearer,
  request: { params: TerminalId },
  responses: { 200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'The output' }, ...unknownSession, ...refusals },
});

export const terminalInputRoute = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/terminals/{terminal_id}/input',
  summary: 'Keys, as the terminal sent them (raw bytes as UTF-8 text)',
  security: bearer,
  request: { params: TerminalId, body: { required: true, ...json(z.object({ data: z.string().min(1).max(65_536) }).strict(), 'The keys') } },
  responses: { 200: json(z.object({ ok: z.literal(true) }), 'Taken'), ...unknownSession, ...refusals },
});

export const terminalResizeRoute = createRoute({
  method: 'post',
  path: '/v1/sessions/{id}/terminals/{terminal_id}/resize',
  summary: 'The terminal changed size',
  security: bearer,
  request: { params: TerminalId, body: { required: true, ...json(TerminalSize.strict(), 'The new size') } },
  responses: { 200: json(z.object({ ok: z.literal(true) }), 'Redrawn'), ...unknownSession, ...refusals },
});

export const closeTerminalRoute = createRoute({
  method: 'delete',
  path: '/v1/sessions/{id}/terminals/{terminal_id}',
  summary: 'Close the chat view (the session goes on)',
  security: bearer,
  request: { params: TerminalId },
  responses: { 200: json(z.object({ ok: z.literal(true) }), 'Closed'), ...unknownSession, ...refusals },
});
