// What `beans serve` adds for the web view (issue 55), through real HTTP: the page's files with their
// security headers (served without the token, and still only to this server's own Host), the size
// budget of the page, and the API routes the page uses (server info, models, `@` completion, a
// resumed session's transcript, pictures on a message), each refused to a stranger like the rest.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest, startBeansServer, type BeansServer, type ServedEvent } from '../support/beans-server.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, scriptedOllama, type TempRepo } from './harness.ts';

const WEB = path.resolve(import.meta.dirname, '../../packages/cli/dist/web');
const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

const open: { beans?: BeansServer; model?: ScriptedServer }[] = [];
afterEach(async () => {
  for (const { beans, model } of open.splice(0)) {
    await beans?.stop('SIGKILL');
    await model?.close();
  }
});

async function serve(turns: ScriptTurn[], files: Record<string, string> = {}): Promise<{ beans: BeansServer; model: ScriptedServer; repo: TempRepo }> {
  const repo = makeTempRepo(files);
  const model = await scriptedOllama({ turns, models: [{ name: 'qwen3', capabilities: ['completion', 'tools', 'vision'], contextLength: 32768 }] });
  const beans = await startBeansServer({ cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
  open.push({ beans, model });
  return { beans, model, repo };
}

const results = (events: ServedEvent[]) => events.filter((event) => event.data.type === 'result');

describe('the web view as beans serve sends it', () => {
  it('stays within its size budget: under 250 KB gzip for everything the page loads', () => {
    const files = [path.join(WEB, 'index.html'), ...readdirSync(path.join(WEB, 'assets')).map((name) => path.join(WEB, 'assets', name))].filter((file) =>
      /\.(html|js|css|svg)$/.test(file),
    );
    const raw = files.reduce((sum, file) => sum + statSync(file).size, 0);
    const gzip = files.reduce((sum, file) => sum + gzipSync(readFileSync(file)).length, 0);
    expect(files.some((file) => file.endsWith('.js'))).toBe(true);
    expect(gzip).toBeLessThan(250 * 1024);
    expect(raw).toBeLessThan(1024 * 1024);
  });

  it('serves the page at / without the token, with a strict CSP; gzip when asked; the API still wants the token', async () => {
    const { beans } = await serve([{ text: 'unused' }]);
    const page = await fetch(beans.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "frame-ancestors 'none'",
    ])
      expect(csp).toContain(directive);
    expect(csp).not.toMatch(/unsafe|\*|http:|https:/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    const html = await page.text();
    // No inline script or style, and nothing from another origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|style=/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = /src="(assets\/app-\w+\.js)"/.exec(html)![1]!;
    const asset = await rawRequest(beans.url, { path: `/${script}`, headers: { host: new URL(beans.url).host, 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toContain('immutable');
    expect(asset.headers['content-security-policy']).toBe(csp);
    expect((await fetch(new URL('assets/nope.js', beans.url))).status).toBe(404);
    expect((await fetch(new URL('v1/sessions', beans.url))).status).toBe(401);
  });

  it('the page too is refused to a foreign Host (DNS rebinding) and to another site', async () => {
    const { beans } = await serve([{ text: 'unused' }]);
    const port = new URL(beans.url).port;
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`])
      expect((await rawRequest(beans.url, { path: '/', headers: { host } })).status).toBe(403);
    const foreign = await rawRequest(beans.url, { path: '/', headers: { host: `127.0.0.1:${port}`, origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
  });
});

describe('the API routes of the web view', () => {
  it('GET /v1/server and /v1/models: the folder new sessions start in, the default provider and model, the models to choose', async () => {
    const { beans, repo } = await serve([{ text: 'unused' }]);
    expect((await beans.api('GET', 'v1/server')).body).toEqual({ cwd: repo.dir, version: expect.any(String), provider: 'ollama', model: 'qwen3' });
    expect((await beans.api('GET', 'v1/models')).body).toEqual({ provider: 'ollama', models: [{ name: 'qwen3', contextWindow: 32768 }] });
  });

  it('@ completion lists workspace files by prefix (.gitignore honoured) and refuses paths outside the workspace', async () => {
    const { beans, repo } = await serve([{ text: 'unused' }], {
      'src/app.ts': 'a',
      'src/App.css': 'b',
      'src/deep/x.ts': 'c',
      'secret.env': 'd',
      '.gitignore': 'secret.env\n',
    });
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir })).body;
    const files = async (prefix: string) => beans.api('GET', `v1/sessions/${id}/files?prefix=${encodeURIComponent(prefix)}`);
    expect((await files('src/a')).body.files.sort()).toEqual(['src/App.css', 'src/app.ts']);
    expect((await files('')).body.files).not.toContain('secret.env');
    expect((await files('sec')).body.files).toEqual([]);
    for (const outside of ['../', '../../etc/passwd', '/etc/pass', '~/.ssh/', 'src/../../', 'C:\\Windows', '..\\x']) {
      const answer = await files(outside);
      expect({ outside, status: answer.status, body: answer.body }).toEqual({
        outside,
        status: 400,
        body: { error: expect.stringContaining('inside the workspace') },
      });
    }
    expect((await beans.api('GET', 'v1/sessions/nope/files?prefix=src')).status).toBe(404);
    expect((await beans.api('GET', `v1/sessions/${id}/files?prefix=${'a'.repeat(1001)}`)).status).toBe(400);
  });

  it('a stored session is listed for its folder and resumed: its transcript has the conversation from before, the events what came after', async () => {
    const { beans, repo } = await serve([{ text: 'First answer.' }, { text: 'Second answer.' }]);
    const first = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir, prompt: 'first question' })).body.id;
    await beans.events(first, (events) => results(events).length > 0);
    expect((await beans.api('GET', `v1/sessions/${first}/transcript`)).body).toEqual({ messages: [] });
    await beans.api('DELETE', `v1/sessions/${first}`);
    // The folder's stored sessions list it, to be resumed.
    const stored = (await beans.api('GET', `v1/stored-sessions?cwd=${encodeURIComponent(repo.dir)}`)).body.sessions;
    expect(stored).toEqual([{ id: first, title: 'first question', lastActivity: expect.any(String), turns: 1, model: 'qwen3' }]);
    expect((await beans.api('GET', 'v1/stored-sessions')).body.sessions).toEqual(stored);
    const missingFolder = await beans.api('GET', `v1/stored-sessions?cwd=${encodeURIComponent(path.join(repo.dir, 'nope'))}`);
    expect(missingFolder).toMatchObject({ status: 400, body: { error: expect.stringContaining('is not a folder') } });
    const resumed = await beans.api('POST', 'v1/sessions', { cwd: repo.dir, resume: first, prompt: 'second question' });
    expect(resumed.status).toBe(201);
    const { id } = resumed.body;
    const { messages } = (await beans.api('GET', `v1/sessions/${id}/transcript`)).body;
    expect(messages.map((message: { type: string }) => message.type)).toEqual(['user', 'assistant']);
    expect(messages[0].message.content).toBe('first question');
    expect(messages[1].message.content).toMatchObject([{ type: 'text', text: 'First answer.' }]);
    const later = await beans.events(id, (events) => results(events).length > 0);
    expect(later.filter((event) => event.data.type === 'user').map((event) => event.data.message.content)).toEqual(['second question']);
  });

  it('a message may carry pictures: they reach the model; a bad picture is 400, too many bytes 413', async () => {
    const { beans, repo, model } = await serve([{ text: 'A tiny picture.' }]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir })).body;
    for (const images of [
      [{ media_type: 'image/svg+xml', data: PNG_1x1 }],
      [{ media_type: 'image/png', data: 'not base64!' }],
      [{ media_type: 'image/png' }],
    ]) {
      expect((await beans.api('POST', `v1/sessions/${id}/messages`, { text: 'look', images })).status).toBe(400);
    }
    const huge = [{ media_type: 'image/png', data: 'A'.repeat(1_100_000) }];
    // node:http, which takes the answer the server gives before the whole body is sent (fetch does not).
    const oversized = await rawRequest(beans.url, {
      method: 'POST',
      path: `/v1/sessions/${id}/messages`,
      headers: { host: new URL(beans.url).host, authorization: `Bearer ${beans.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'look', images: huge }),
    });
    expect(oversized.status).toBe(413);
    expect(
      (await beans.api('POST', `v1/sessions/${id}/messages`, { text: 'what is this?', images: [{ media_type: 'image/png', data: PNG_1x1 }] })).status,
    ).toBe(202);
    await beans.events(id, (events) => results(events).length > 0);
    const chat = model.requests.find((request) => request.kind === 'chat')!.body as { messages: { role: string; images?: string[] }[] };
    expect(chat.messages.filter((message) => message.role === 'user').flatMap((message) => message.images ?? [])).toHaveLength(1);
  });

  it('every route of the web view needs the token and this server Host', async () => {
    const { beans, repo } = await serve([{ text: 'unused' }]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir })).body;
    const port = new URL(beans.url).port;
    for (const route of ['v1/server', 'v1/models', 'v1/stored-sessions', `v1/sessions/${id}/files?prefix=src`, `v1/sessions/${id}/transcript`]) {
      for (const auth of [false, 'wrong'] as const) expect((await beans.api('GET', route, undefined, { auth })).status).toBe(401);
      const rebound = await rawRequest(beans.url, { path: `/${route}`, headers: { authorization: `Bearer ${beans.token}`, host: `evil.example:${port}` } });
      expect(rebound.status).toBe(403);
      expect((await beans.api('GET', route)).status).toBe(200);
    }
    // The OpenAPI document names them with the rest.
    const paths = Object.keys((await beans.api('GET', 'v1/openapi.json')).body.paths);
    expect(paths).toEqual(
      expect.arrayContaining(['/v1/server', '/v1/models', '/v1/stored-sessions', '/v1/sessions/{id}/files', '/v1/sessions/{id}/transcript']),
    );
  });
});
