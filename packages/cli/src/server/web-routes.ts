import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { SdkMessageMapper, UsageError, VERSION, type AgentMessage, type SdkMessage } from '@beans/core';
import type { SessionTable } from './session-table.js';

// What the web view needs beside the session routes: where the server runs and its default model,
// the models to choose from, file names for `@` completion, and the conversation a resumed session
// had before this server took it over. Part of the API v1 like the rest (same guards, same document).

const ErrorBody = z.object({ error: z.string() });
const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const refusals = { 401: json(ErrorBody, 'No or wrong bearer token'), 403: json(ErrorBody, 'A foreign Host or Origin header') };
const bearer = [{ bearer: [] }];
const SessionId = z.object({ id: z.string().min(1).max(200) });
const unknownSession = { 404: json(ErrorBody, 'No such session') };

const serverInfoRoute = createRoute({
  method: 'get',
  path: '/v1/server',
  summary: 'Where `beans serve` runs: its folder (new sessions start there), version, default provider and model',
  security: bearer,
  responses: {
    200: json(z.object({ cwd: z.string(), version: z.string(), provider: z.string().optional(), model: z.string().optional() }), 'The server'),
    ...refusals,
  },
});

const modelsRoute = createRoute({
  method: 'get',
  path: '/v1/models',
  summary: "The default provider's models (`beans models list`)",
  security: bearer,
  responses: {
    200: json(
      z.object({ provider: z.string(), models: z.array(z.object({ name: z.string(), contextWindow: z.number().optional() }).passthrough()) }),
      'The models',
    ),
    502: json(ErrorBody, 'The provider could not list them (no key, unreachable)'),
    ...refusals,
  },
});

const filesRoute = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/files',
  summary: "`@` completion: the session's workspace files whose path starts with the prefix (at most 50; .gitignore honoured)",
  security: bearer,
  request: {
    params: SessionId,
    query: z.object({ prefix: z.string().max(1000).default('').openapi({ description: 'A path relative to the workspace' }) }),
  },
  responses: {
    200: json(z.object({ files: z.array(z.string()) }), 'Relative paths'),
    400: json(ErrorBody, 'A prefix outside the workspace (absolute, or with ..)'),
    ...unknownSession,
    ...refusals,
  },
});

const transcriptRoute = createRoute({
  method: 'get',
  path: '/v1/sessions/{id}/transcript',
  summary: 'A resumed session: its conversation before this server took it over, as stream-json messages (the event stream has what came after)',
  security: bearer,
  request: { params: SessionId },
  responses: { 200: json(z.object({ messages: z.array(z.object({}).passthrough()) }), 'The messages, oldest first'), ...unknownSession, ...refusals },
});

const storedSessionsRoute = createRoute({
  method: 'get',
  path: '/v1/stored-sessions',
  summary: "The sessions stored for a folder's workspace, newest first (what `beans sessions list` shows there): any of them can be resumed",
  security: bearer,
  request: { query: z.object({ cwd: z.string().min(1).max(4096).optional().openapi({ description: 'The folder; default: where `beans serve` runs' }) }) },
  responses: {
    200: json(
      z.object({
        sessions: z.array(z.object({ id: z.string(), title: z.string(), lastActivity: z.string(), turns: z.number(), model: z.string().optional() })),
      }),
      'At most 50, newest first',
    ),
    400: json(ErrorBody, 'Not a folder on this machine'),
    ...refusals,
  },
});

interface StoredSessionInfo {
  id: string;
  title: string;
  lastActivity: string;
  turns: number;
  model?: string;
}

export interface WebRouteOptions {
  sessions: SessionTable;
  /** The folder `beans serve` was started in. */
  cwd: string;
  defaults: () => Promise<{ provider?: string; model?: string }>;
  listModels: () => Promise<{ provider: string; models: { name: string; contextWindow?: number }[] }>;
  /** The stored sessions of the workspace a folder belongs to; throws a UsageError for a folder that is not one. */
  storedSessions: (cwd: string) => Promise<StoredSessionInfo[]>;
  /** Whether an id is a runner's background session (its events hold its whole conversation). */
  onRunner?: (id: string) => Promise<boolean>;
}

export function registerWebRoutes(app: OpenAPIHono, options: WebRouteOptions): void {
  const { sessions } = options;
  const missing = (id: string) => ({ error: `No session ${id} on this server.` });

  app.openapi(serverInfoRoute, async (c) => c.json({ cwd: options.cwd, version: VERSION, ...(await options.defaults().catch(() => ({}))) }, 200));

  app.openapi(modelsRoute, async (c) => {
    try {
      return c.json(await options.listModels(), 200);
    } catch (error) {
      return c.json({ error: error instanceof Error ? error.message : String(error) }, 502);
    }
  });

  app.openapi(storedSessionsRoute, async (c) => {
    try {
      return c.json({ sessions: await options.storedSessions(c.req.valid('query').cwd ?? options.cwd) }, 200);
    } catch (error) {
      if (error instanceof UsageError) return c.json({ error: error.message }, 400);
      throw error;
    }
  });

  app.openapi(filesRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id);
    if (!session) return c.json(missing(id), 404);
    const { prefix } = c.req.valid('query');
    // The list holds only the workspace's files; a prefix that points elsewhere is refused, not matched.
    if (/^([/\\~]|[A-Za-z]:)/.test(prefix) || prefix.split(/[/\\]/).includes('..') || prefix.includes('\0'))
      return c.json({ error: 'Only files inside the workspace are completed (a relative path without ..).' }, 400);
    // The chat's own completion (core's session listings): the same files, matched the same way.
    const files = await session.agent.completePath(prefix.replace(/^\.\//, ''));
    return c.json({ files }, 200);
  });

  app.openapi(transcriptRoute, async (c) => {
    const { id } = c.req.valid('param');
    const session = sessions.get(id);
    if (!session && (await options.onRunner?.(id))) return c.json({ messages: [] }, 200);
    if (!session) return c.json(missing(id), 404);
    return c.json({ messages: earlierMessages(session.id, session.earlier, session.agent.workspace.root) as unknown as Record<string, unknown>[] }, 200);
  });
}

/** Stored messages as the event stream would have said them: the user's prompts, the answers, the tool results. */
function earlierMessages(sessionId: string, messages: readonly AgentMessage[], workspaceRoot: string): SdkMessage[] {
  const mapper = new SdkMessageMapper({ sessionId, replayUserMessages: true, workspaceRoot });
  return messages.flatMap((message) => mapper.event({ type: 'message_end', message }));
}
