// The session server's HTTP API v1, as the page speaks it. The token arrives in the URL fragment
// (`/#token=...`, which browsers never send to a server), moves to session storage at once, and the
// fragment is wiped from the address bar and history; every request carries it as a bearer header,
// never in a URL.

const TOKEN_KEY = 'beans.token';

/** Takes the token from `#token=...` into session storage (and out of the address bar); returns the stored one. */
export function takeToken(location: Location = window.location, storage: Storage = window.sessionStorage): string | undefined {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromUrl = fragment.get('token');
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl);
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  }
  return storage.getItem(TOKEN_KEY) ?? undefined;
}

type SessionState = 'running' | 'waiting' | 'idle' | 'done' | 'failed';

export interface SessionSummary {
  id: string;
  cwd: string;
  state: SessionState;
  title: string;
  updatedAt: string;
  exitCode?: number;
  /** A background session on a runner: the runner holding it ("" while queued) and its branch. */
  runner?: string;
  branch?: string;
}

export interface ModelInfo {
  name: string;
  contextWindow?: number;
}

export interface ServerInfo {
  cwd: string;
  version: string;
  provider?: string;
  model?: string;
}

export interface StoredSession {
  id: string;
  title: string;
  lastActivity: string;
  turns: number;
  model?: string;
}

export interface Picture {
  media_type: string;
  /** base64 */
  data: string;
}

/** A refusal or failure the server explained (its JSON `error`), with the HTTP status. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The API relative to the page, so a reverse proxy may serve Beans under a path of its own. */
export function apiUrl(route: string): string {
  return new URL(route, document.baseURI).toString();
}

export class Api {
  constructor(private readonly token: string) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }

  async call<T>(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const response = await fetch(apiUrl(route), {
      method,
      headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      // Nothing of this page's address goes with its requests.
      referrerPolicy: 'no-referrer',
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed as { error?: unknown } | undefined)?.error;
      throw new ApiError(response.status, typeof error === 'string' ? error : `HTTP ${response.status}`);
    }
    return parsed as T;
  }

  sessions = () => this.call<{ sessions: SessionSummary[] }>('GET', 'v1/sessions').then((answer) => answer.sessions);
  session = (id: string) => this.call<SessionSummary>('GET', `v1/sessions/${encodeURIComponent(id)}`);
  server = () => this.call<ServerInfo>('GET', 'v1/server');
  models = () => this.call<{ provider: string; models: ModelInfo[] }>('GET', 'v1/models');
  start = (request: { cwd: string; model?: string; permissionMode?: string; resume?: string }) => this.call<{ id: string }>('POST', 'v1/sessions', request);
  send = (id: string, text: string, images: Picture[] = []) =>
    this.call('POST', `v1/sessions/${encodeURIComponent(id)}/messages`, images.length > 0 ? { text, images } : { text });
  interrupt = (id: string) => this.call('POST', `v1/sessions/${encodeURIComponent(id)}/interrupt`);
  stop = (id: string) => this.call('DELETE', `v1/sessions/${encodeURIComponent(id)}`);
  answer = (id: string, requestId: string, answer: { behavior: 'allow' | 'deny'; always?: boolean; message?: string }) =>
    this.call('POST', `v1/sessions/${encodeURIComponent(id)}/permissions/${encodeURIComponent(requestId)}`, answer);
  files = (id: string, prefix: string, signal?: AbortSignal) =>
    this.call<{ files: string[] }>('GET', `v1/sessions/${encodeURIComponent(id)}/files?prefix=${encodeURIComponent(prefix)}`, undefined, signal).then(
      (answer) => answer.files,
    );
  storedSessions = (cwd: string | undefined, signal?: AbortSignal) =>
    this.call<{ sessions: StoredSession[] }>('GET', `v1/stored-sessions${cwd ? `?cwd=${encodeURIComponent(cwd)}` : ''}`, undefined, signal).then(
      (answer) => answer.sessions,
    );
  transcript = (id: string) => this.call<{ messages: unknown[] }>('GET', `v1/sessions/${encodeURIComponent(id)}/transcript`).then((answer) => answer.messages);
}
