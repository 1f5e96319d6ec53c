// `beans serve` (issue 54) through real HTTP: every route of the API v1, every refusal, replay from
// Last-Event-ID, a question answered by one of two clients, an interrupt, a client that leaves
// mid-turn, and a clean stop. The sessions talk to a scripted Ollama through the real client.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest, startBeansServer, type BeansServer, type ServedEvent } from '../support/beans-server.ts';
import { processesLeft } from '../support/processes.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, scriptedOllama, type TempRepo } from './harness.ts';

const open: { beans?: BeansServer; model?: ScriptedServer }[] = [];
afterEach(async () => {
  for (const { beans, model } of open.splice(0)) {
    await beans?.stop('SIGKILL');
    await model?.close();
  }
});

async function serve(turns: ScriptTurn[], files: Record<string, string> = {}): Promise<{ beans: BeansServer; model: ScriptedServer; repo: TempRepo }> {
  const repo = makeTempRepo(files);
  const model = await scriptedOllama({ turns });
  const beans = await startBeansServer({ cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
  open.push({ beans, model });
  return { beans, model, repo };
}

const results = (events: ServedEvent[]) => events.filter((event) => event.data.type === 'result');
const questions = (events: ServedEvent[]) => events.filter((event) => event.data.type === 'permission_request');

describe('beans serve: the HTTP API v1', () => {
  it('prints one line with the URL and token, and keeps the token in a file only the user can read', async () => {
    const { beans, repo } = await serve([{ text: 'unused' }]);
    expect(beans.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(beans.token.length).toBeGreaterThanOrEqual(22); // 128 bits or more in base64url
    const file = path.join(repo.env.XDG_STATE_HOME!, 'beans-agent', 'server.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url: beans.url, token: beans.token });
    expect(await beans.stop('SIGTERM')).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('runs a prompt: the events are the stream-json messages, numbered, replayable from Last-Event-ID or ?after', async () => {
    const { beans, repo } = await serve([{ text: ['Hello ', 'from the server.'] }]);
    const created = await beans.api('POST', 'v1/sessions', { cwd: repo.dir, prompt: 'say hello' });
    expect(created.status).toBe(201);
    const { id } = created.body;
    const all = await beans.events(id, (events) => results(events).length > 0);
    expect(all.map((event) => event.id)).toEqual(all.map((_, index) => index + 1));
    expect(all[0]!.data).toMatchObject({ type: 'system', subtype: 'init', session_id: id, model: 'qwen3' });
    expect(all.find((event) => event.data.type === 'user')!.data.message.content).toBe('say hello');
    const assistant = all.find((event) => event.data.type === 'assistant')!;
    expect(assistant.data.message.content).toMatchObject([{ type: 'text', text: 'Hello from the server.' }]);
    expect(all.some((event) => event.data.type === 'stream_event')).toBe(true);
    expect(results(all)[0]!.data).toMatchObject({ subtype: 'success', result: 'Hello from the server.' });

    const middle = all[Math.floor(all.length / 2)]!.id;
    const fromHeader = await beans.events(id, (events) => results(events).length > 0, { lastEventId: middle });
    expect(fromHeader.map((event) => event.id)).toEqual(all.filter((event) => event.id > middle).map((event) => event.id));
    const fromQuery = await beans.events(id, (events) => results(events).length > 0, { after: middle });
    expect(fromQuery).toEqual(fromHeader);

    const listed = await beans.api('GET', 'v1/sessions');
    expect(listed.body.sessions).toEqual([{ id, cwd: repo.dir, state: 'idle', title: 'say hello', updatedAt: expect.any(String), exitCode: 0 }]);
    expect((await beans.api('GET', `v1/sessions/${id}`)).body).toMatchObject({ id, state: 'idle' });
  });

  it('a question is answered by the first of two watching clients; the second answer gets 409; the file lands', async () => {
    const { beans, repo } = await serve([{ toolCalls: [{ name: 'write_file', args: { path: 'out.txt', content: 'written\n' } }] }, { text: 'Wrote it.' }]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir, prompt: 'write out.txt' })).body;
    const [first, second] = await Promise.all([
      beans.events(id, (events) => questions(events).length > 0),
      beans.events(id, (events) => questions(events).length > 0),
    ]);
    const asked = questions(first)[0]!.data;
    expect(questions(second)[0]!.data).toEqual(asked);
    expect(asked).toMatchObject({ type: 'permission_request', tool_name: 'write_file', input: { path: 'out.txt', content: 'written\n' } });
    expect((await beans.api('GET', `v1/sessions/${id}`)).body.state).toBe('waiting');
    expect(existsSync(path.join(repo.dir, 'out.txt'))).toBe(false);
    const answers = await Promise.all([
      beans.api('POST', `v1/sessions/${id}/permissions/${asked.request_id}`, { behavior: 'allow' }),
      beans.api('POST', `v1/sessions/${id}/permissions/${asked.request_id}`, { behavior: 'deny', message: 'no' }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const done = await beans.events(id, (events) => results(events).length > 0);
    expect(done.find((event) => event.data.type === 'permission_resolved')!.data).toMatchObject({ request_id: asked.request_id, behavior: 'allow' });
    expect(readFileSync(path.join(repo.dir, 'out.txt'), 'utf8')).toBe('written\n');
    expect((await beans.api('POST', `v1/sessions/${id}/permissions/nope`, { behavior: 'allow' })).status).toBe(404);
  });

  // 30.417: a number no other test sleeps for, since the check below reads every process on the machine.
  it('interrupt stops a running `sleep 30` within 2 s; a message sent meanwhile steers; DELETE stops the session', async () => {
    const { beans, repo } = await serve([{ toolCalls: [{ name: 'shell', args: { command: 'sleep 30.417' } }] }, { text: 'Stopped.' }]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir, prompt: 'wait a while', permissionMode: 'yolo' })).body;
    await beans.events(id, (events) => events.some((event) => event.data.type === 'assistant'));
    await expect.poll(() => processesLeft('sleep 30.417', 0).then((left) => left.length), { timeout: 5_000 }).toBeGreaterThan(0);
    const started = Date.now();
    expect((await beans.api('POST', `v1/sessions/${id}/interrupt`)).status).toBe(200);
    await beans.events(id, (events) => results(events).length > 0);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await processesLeft('sleep 30.417', 1_000)).toEqual([]);
    expect((await beans.api('GET', `v1/sessions/${id}`)).body).toMatchObject({ state: 'idle', exitCode: 130 });

    const stopped = await beans.api('DELETE', `v1/sessions/${id}`);
    expect(stopped).toMatchObject({ status: 200, body: { id, state: 'done' } });
    expect((await beans.api('POST', `v1/sessions/${id}/messages`, { text: 'more' })).status).toBe(409);
  });

  it('a client that disconnects mid-turn does not stop the turn; a message sent meanwhile joins it', async () => {
    const { beans, repo, model } = await serve([{ text: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 250 }, { text: 'And the follow-up.' }]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir, prompt: 'count' })).body;
    await beans.events(id, (events) => events.some((event) => event.data.type === 'stream_event'));
    expect((await beans.api('GET', `v1/sessions/${id}`)).body.state).toBe('running');
    expect((await beans.api('POST', `v1/sessions/${id}/messages`, { text: 'and then?' })).status).toBe(202);
    const later = await beans.events(id, (events) => results(events).length > 0);
    // The answer was finished, then the run went on with the message queued behind it.
    const answers = later.filter((event) => event.data.type === 'assistant').map((event) => event.data.message.content[0].text);
    expect(answers).toEqual(['one two three four', 'And the follow-up.']);
    expect(results(later).map((event) => event.data.result)).toEqual(['And the follow-up.']);
    const chats = model.requests.filter((request) => request.kind === 'chat');
    expect(chats).toHaveLength(2);
    expect(JSON.stringify(chats[1]!.body)).toContain('and then?');
  });

  it('SIGTERM ends the server within 3 s, stops its sessions commands, and leaves the session resumable', async () => {
    const { beans, repo } = await serve([{ toolCalls: [{ name: 'shell', args: { command: 'sleep 31.583' } }] }, { text: 'never' }]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir, prompt: 'wait', permissionMode: 'yolo' })).body;
    await expect.poll(() => processesLeft('sleep 31.583', 0).then((left) => left.length), { timeout: 5_000 }).toBeGreaterThan(0);
    const started = Date.now();
    expect(await beans.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await processesLeft('sleep 31.583', 1_000)).toEqual([]);
    const sessions = path.join(repo.env.XDG_STATE_HOME!, 'beans-agent', 'sessions');
    const stored = (await import('node:fs')).readdirSync(sessions, { recursive: true }).map(String);
    expect(stored.some((file) => file.includes(id))).toBe(true);
  });
});

describe('beans serve: a stranger on the network gets nothing', () => {
  it('every route but health needs the token: none, a wrong one or a malformed header is 401 with nothing else', async () => {
    const { beans, repo } = await serve([{ text: 'unused' }]);
    const doc = (await beans.api('GET', 'v1/openapi.json')).body;
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => [method.toUpperCase(), route.replace(/\{[a-z_]+\}/g, 'x')] as const),
    );
    // Every route of PRODUCT.md's table, the attach terminal's, and the web view's five (serve-web.test.ts).
    expect(routes.length).toBe(20);
    for (const [method, route] of routes) {
      const path = route.slice(1);
      for (const auth of [false, 'wrong-token', `${beans.token}x`] as const) {
        const answer = await beans.api(method, path, method === 'POST' ? { cwd: repo.dir } : undefined, { auth });
        if (route === '/v1/health') expect(answer.status).toBe(200);
        else
          expect({ route, status: answer.status, body: answer.body }).toEqual({ route, status: 401, body: { error: expect.stringMatching(/^Unauthorized/) } });
      }
    }
    const malformed = await rawRequest(beans.url, { path: '/v1/sessions', headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    expect((await beans.api('GET', 'v1/sessions')).status).toBe(200);
  });

  it('a foreign Host (DNS rebinding) or Origin is 403 even with the token; no CORS header is ever sent', async () => {
    const { beans } = await serve([{ text: 'unused' }]);
    const port = new URL(beans.url).port;
    const auth = { authorization: `Bearer ${beans.token}` };
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, 'evil.example']) {
      expect((await rawRequest(beans.url, { path: '/v1/sessions', headers: { ...auth, host } })).status).toBe(403);
      expect((await rawRequest(beans.url, { path: '/v1/health', headers: { host } })).status).toBe(403);
    }
    // Through an SSH tunnel the port differs: loopback names are still this server.
    expect((await rawRequest(beans.url, { path: '/v1/sessions', headers: { ...auth, host: 'localhost:8080' } })).status).toBe(200);
    for (const origin of ['http://evil.example', `http://localhost:${Number(port) + 1}`, 'null']) {
      const answer = await rawRequest(beans.url, { path: '/v1/sessions', headers: { ...auth, host: `127.0.0.1:${port}`, origin } });
      expect(answer.status).toBe(403);
      expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control'))).toEqual([]);
    }
    const same = await rawRequest(beans.url, { path: '/v1/sessions', headers: { ...auth, host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` } });
    expect(same.status).toBe(200);
    const preflight = await rawRequest(beans.url, {
      method: 'OPTIONS',
      path: '/v1/sessions',
      headers: { host: `127.0.0.1:${port}`, origin: 'http://evil.example' },
    });
    expect(preflight.status).toBe(403);
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control'))).toEqual([]);
  });

  it('a body over 1 MB is 413; bad input is 400 with a clear error; an unknown session is 404', async () => {
    const { beans, repo } = await serve([{ text: 'unused' }]);
    // curl, which reads the answer while it still sends: the server answers as soon as it knows.
    const bodyFile = path.join(repo.home, 'huge.json');
    writeFileSync(bodyFile, JSON.stringify({ cwd: repo.dir, prompt: 'x'.repeat(1_100_000) }));
    for (const sized of [[], ['-H', 'transfer-encoding: chunked']]) {
      const args = ['-s', '-w', '\n%{http_code}', '-H', `authorization: Bearer ${beans.token}`, '-H', 'content-type: application/json', ...sized];
      const curl = spawnSync('curl', [...args, '--data-binary', `@${bodyFile}`, `${beans.url}v1/sessions`], { encoding: 'utf8' });
      const [body, status] = curl.stdout.split('\n');
      expect({ status, body: JSON.parse(body!) }).toEqual({ status: '413', body: { error: 'The body is over 1 MB (1048576 bytes).' } });
    }
    expect((await beans.api('GET', 'v1/sessions')).body.sessions).toEqual([]);
    const missingFolder = await beans.api('POST', 'v1/sessions', { cwd: path.join(repo.dir, 'nope') });
    expect(missingFolder).toMatchObject({ status: 400, body: { error: expect.stringContaining('is not a folder') } });
    const extra = await beans.api('POST', 'v1/sessions', { cwd: repo.dir, shell: 'rm -rf /' });
    expect(extra.status).toBe(400);
    expect((await beans.api('POST', 'v1/sessions', 'not json')).status).toBe(400);
    for (const [method, route] of [
      ['GET', 'v1/sessions/nope'],
      ['DELETE', 'v1/sessions/nope'],
      ['POST', 'v1/sessions/nope/interrupt'],
      ['GET', 'v1/sessions/nope/events'],
    ] as const) {
      const answer = await beans.api(method, route);
      expect(answer).toMatchObject({ status: 404, body: { error: 'No session nope on this server.' } });
    }
  });
});
