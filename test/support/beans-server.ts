// `beans serve` as a real process for tests: started in a temporary repository, its one stdout line
// parsed, and HTTP helpers that speak to it the way any client would (fetch, and node:http for the
// requests fetch refuses to forge, such as a foreign Host header).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import path from 'node:path';

const BEANS_BIN = path.resolve(import.meta.dirname, '../../bin/beans');

export interface BeansServer {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:PORT/` */
  url: string;
  token: string;
  stderr(): string;
  /** fetch with the token (unless `auth: false`), JSON in and out. */
  api(
    method: string,
    route: string,
    body?: unknown,
    options?: { auth?: boolean | string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: Json; headers: Headers }>;
  /** Reads the SSE stream until `until` says stop (or the timeout), then disconnects. */
  events(id: string, until: (events: ServedEvent[]) => boolean, options?: { after?: number; lastEventId?: number; timeoutMs?: number }): Promise<ServedEvent[]>;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

// Whatever JSON the server sends; tests check its shape.
type Json = any;

export interface ServedEvent {
  id: number;
  data: Json;
}

export async function startBeansServer(options: { cwd: string; env: NodeJS.ProcessEnv; args?: string[] }): Promise<BeansServer> {
  const child = spawn(BEANS_BIN, ['serve', ...(options.args ?? [])], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal as unknown as number))));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`beans serve printed no URL in 15 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 15_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) {
        clearTimeout(timer);
        resolve(stdout.split('\n')[0]!);
      }
    });
    void exited.then((code) => reject(new Error(`beans serve exited with ${code}\nstderr: ${stderr}`)));
  });
  const match = /^Beans is serving on (http:\/\/[^/]+\/)#token=(\S+)$/.exec(line);
  if (!match) throw new Error(`unexpected first line: ${line}`);
  const [, url, token] = match as unknown as [string, string, string];

  const api: BeansServer['api'] = async (method, route, body, extra = {}) => {
    const headers: Record<string, string> = { ...(extra.headers ?? {}) };
    if (extra.auth !== false) headers.authorization = `Bearer ${typeof extra.auth === 'string' ? extra.auth : token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(new URL(route, url), {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: the text itself.
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };

  const events: BeansServer['events'] = async (id, until, options = {}) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 15_000);
    const query = options.after !== undefined ? `?after=${options.after}` : '';
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'text/event-stream' };
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
    const seen: ServedEvent[] = [];
    try {
      const response = await fetch(new URL(`v1/sessions/${id}/events${query}`, url), { headers, signal: controller.signal });
      if (response.status !== 200) throw new Error(`events: HTTP ${response.status} ${await response.text()}`);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const idLine = /^id: (\d+)$/m.exec(block);
          const dataLine = /^data: (.*)$/m.exec(block);
          if (idLine && dataLine) seen.push({ id: Number(idLine[1]), data: JSON.parse(dataLine[1]!) });
        }
        if (until(seen)) break;
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    return seen;
  };

  return {
    child,
    url,
    token,
    stderr: () => stderr,
    api,
    events,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A request with headers fetch will not send as given (a forged Host): node's own client. */
export function rawRequest(
  url: string,
  options: { method?: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: target.hostname, port: target.port, method: options.method ?? 'GET', path: options.path, headers: options.headers },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
      },
    );
    // A server may answer (413) and close before the whole body is sent: the answer counts, not the broken pipe.
    let answered = false;
    request.on('response', () => (answered = true));
    request.on('error', (error) => (answered ? undefined : reject(error)));
    request.end(options.body);
  });
}
