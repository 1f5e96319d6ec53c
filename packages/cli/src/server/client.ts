import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ConfigError, UsageError } from '@beans/core';
import { readServerFile, type ServerFile } from './server-file.js';

/** Where the session server is: `BEANS_SERVER_URL` with `BEANS_SERVER_TOKEN` (another machine, a tunnel), else the local one's file. */
export function findServer(env: NodeJS.ProcessEnv): Pick<ServerFile, 'url' | 'token'> | undefined {
  const url = env.BEANS_SERVER_URL?.trim();
  if (url) {
    const token = env.BEANS_SERVER_TOKEN?.trim();
    if (!token) throw new ConfigError('BEANS_SERVER_URL is set but BEANS_SERVER_TOKEN is not: set it to the token `beans serve` printed.');
    return { url: url.endsWith('/') ? url : `${url}/`, token };
  }
  return readServerFile(env);
}

export interface ServedSessionInfo {
  id: string;
  cwd: string;
  state: 'running' | 'waiting' | 'idle' | 'done' | 'failed';
  title: string;
  updatedAt: string;
  exitCode?: number;
}

/** The HTTP API v1 as a program uses it: JSON calls with the token, and SSE streams read with fetch. */
export class ServerClient {
  constructor(private readonly server: Pick<ServerFile, 'url' | 'token'>) {}

  get url(): string {
    return this.server.url;
  }

  async call<T>(method: string, route: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(new URL(route, this.server.url), {
        method,
        headers: { authorization: `Bearer ${this.server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ConfigError(`The Beans server at ${this.server.url} does not answer (${(error as Error).message}); is \`beans serve\` running?`);
    }
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as T & { error?: string }) : ({} as T & { error?: string });
    if (response.status === 401) throw new ConfigError(`The Beans server at ${this.server.url} refused the token.`);
    if (!response.ok) throw new UsageError(parsed.error ?? `The Beans server answered HTTP ${response.status}.`);
    return parsed;
  }

  /** Reads an SSE route until it ends, `onEvent` returns true, or the signal stops it. */
  async stream(route: string, onEvent: (data: unknown, id: number) => boolean | void, signal?: AbortSignal): Promise<void> {
    const response = await fetch(new URL(route, this.server.url), {
      headers: { authorization: `Bearer ${this.server.token}`, accept: 'text/event-stream' },
      signal,
    });
    if (!response.ok || !response.body) throw new UsageError(`The Beans server answered HTTP ${response.status} for ${route}.`);
    const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    const reader = events.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (onEvent(JSON.parse(value.data), Number(value.id))) return;
      }
    } catch (error) {
      if (!signal?.aborted) throw error;
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  sessions(): Promise<ServedSessionInfo[]> {
    return this.call<{ sessions: ServedSessionInfo[] }>('GET', 'v1/sessions').then((answer) => answer.sessions);
  }

  /** A session by id or the start of one (as `-r` takes them); the newest without one. */
  async resolve(id: string | undefined): Promise<ServedSessionInfo> {
    const sessions = await this.sessions();
    if (sessions.length === 0) throw new UsageError(`The Beans server at ${this.server.url} runs no session. Start one with \`beans -p "..." --background\`.`);
    if (!id) return sessions[0];
    const found = sessions.filter((session) => session.id === id || session.id.startsWith(id));
    if (found.length === 1) return found[0];
    if (found.length === 0) throw new UsageError(`No session ${id} on the Beans server; \`beans sessions list\` shows them.`);
    throw new UsageError(`${id} names ${found.length} sessions; give more of the id.`);
  }
}
