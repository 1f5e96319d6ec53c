import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { classifyError } from '../../src/llm/failures.js';
import { createHttpFetch, httpFetch } from '../../src/llm/http-fetch.js';
import { closedPort } from './helpers.js';
import { rejection, serve, servers, streamedBodyCases, withLocalServersOnly } from './http-test-server.js';

const HTTP_FETCH = path.resolve(import.meta.dirname, '../../src/llm/http-fetch.ts');

withLocalServersOnly();

describe('httpFetch', () => {
  it('sends method, headers and body, and answers with status, headers, url and a JSON body', async () => {
    const { url } = await serve((req, res, body) => {
      res.writeHead(201, 'Made', [
        ['content-type', 'application/json'],
        ['x-request-id', 'r-1'],
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]);
      res.end(
        JSON.stringify({
          method: req.method,
          auth: req.headers.authorization,
          custom: req.headers['x-custom'],
          length: req.headers['content-length'],
          body: JSON.parse(body),
        }),
      );
    });
    const headers = new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' });
    headers.set('x-custom', 'yes');
    const response = await httpFetch(new URL('/v1/chat', url), { method: 'post', headers, body: JSON.stringify({ hi: 'é' }) });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${url}/v1/chat`);
    expect(response.headers.get('x-request-id')).toBe('r-1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({
      method: 'POST',
      auth: 'Bearer k',
      custom: 'yes',
      length: String(Buffer.byteLength('{"hi":"é"}')),
      body: { hi: 'é' },
    });
  });

  it('takes plain-object headers and byte bodies', async () => {
    const { url } = await serve((req, res, body) => res.end(`${req.headers['x-a']}|${body}`));
    const response = await httpFetch(url, { method: 'PUT', headers: { 'x-a': '1' }, body: new TextEncoder().encode('bytes') });
    expect(await response.text()).toBe('1|bytes');
  });

  streamedBodyCases(httpFetch);

  it('an abort before the answer rejects with the signal reason (a timeout stays a TimeoutError) and closes the socket', async () => {
    const { url, closed } = await serve(() => {});
    const error = await rejection(httpFetch(url, { signal: AbortSignal.timeout(50) }));
    expect(error).toMatchObject({ name: 'TimeoutError' });
    await closed();
    const aborted = AbortSignal.abort();
    expect(await rejection(httpFetch(url, { signal: aborted }))).toBe(aborted.reason);
  });

  it('a refused connection rejects like fetch: TypeError "fetch failed" whose cause is ECONNREFUSED', async () => {
    const port = await closedPort();
    const error = await rejection(httpFetch(`http://127.0.0.1:${port}/api/chat`, { method: 'POST', body: '{}' }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    expect(classifyError(error)).toMatchObject({ kind: 'unreachable', detail: 'connection refused', retryable: false });
  });

  it('a body cut short by the server is a retryable dropped connection', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson', 'content-length': '1000' });
      res.write('{"message":"partial"}\n', () => res.socket?.destroy());
    });
    const response = await httpFetch(url);
    const error = await rejection(response.text());
    expect(classifyError(error)).toMatchObject({ kind: 'network', retryable: true });
  });

  it('a body that goes silent fails after the body timeout as a dropped connection', async () => {
    const { url, closed } = await serve((_req, res) => res.write('{"a":'));
    const response = await createHttpFetch({ bodyTimeoutMs: 50 })(url);
    const error = await rejection(response.text());
    expect(classifyError(error)).toMatchObject({ kind: 'network', detail: 'the server stopped sending', retryable: true });
    await closed();
  });

  it('decodes a gzip body it did not ask for, and sends no accept-encoding of its own', async () => {
    const { url } = await serve((req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ asked: req.headers['accept-encoding'] ?? null })));
    });
    expect(await (await httpFetch(url)).json()).toEqual({ asked: null });
  });

  it('gives a null body for 204, and error statuses as responses, not throws', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/empty') res.writeHead(204).end();
      else res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' }).end('{"error":"slow down"}');
    });
    const empty = await httpFetch(`${url}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const limited = await httpFetch(`${url}/limited`);
    expect([limited.status, limited.ok, limited.headers.get('retry-after')]).toEqual([429, false, '3']);
    expect(await limited.json()).toEqual({ error: 'slow down' });
  });

  it('follows redirects, keeping the body on 307 and dropping Authorization for another origin', async () => {
    const target = await serve((req, res, body) => res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null, body })));
    const { url } = await serve((req, res) => {
      if (req.url === '/same') res.writeHead(307, { location: '/moved' }).end();
      else res.writeHead(308, { location: `${target.url}/elsewhere` }).end();
    });
    const same = await httpFetch(`${url}/same`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: 'payload' });
    expect(same.redirected).toBe(true);
    expect(same.status).toBe(200);
    const other = await httpFetch(`${url}/other`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: 'payload' });
    expect(await other.json()).toEqual({ path: '/elsewhere', auth: null, body: 'payload' });
    expect(other.url).toBe(`${target.url}/elsewhere`);
  });

  it("leaves proxied set-ups (NODE_USE_ENV_PROXY) and kinds of body it does not send to Node's fetch", async () => {
    const { url } = await serve((_req, res) => res.end('direct'));
    const nodeFetch = vi.fn(() => Promise.resolve(new Response('through fetch')));
    vi.stubGlobal('fetch', nodeFetch);
    expect(await (await httpFetch(url)).text()).toBe('direct');
    vi.stubEnv('NODE_USE_ENV_PROXY', '1');
    expect(await (await httpFetch(url)).text()).toBe('through fetch');
    vi.unstubAllEnvs();
    expect(await (await httpFetch(url, { method: 'POST', body: new Blob(['x']) })).text()).toBe('through fetch');
    expect(nodeFetch).toHaveBeenCalledTimes(2);
  });

  it('a status a Response cannot hold rejects like fetch instead of throwing a RangeError', async () => {
    const { url } = await serve((_req, res) => res.writeHead(600).end('odd'));
    const error = await rejection(httpFetch(url));
    expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed', cause: { message: 'invalid HTTP status 600' } });
  });

  it('an invalid URL rejects like fetch', async () => {
    const error = await rejection(httpFetch('http://[bad'));
    expect(error).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });
});

describe('httpFetch over https', () => {
  it('trusts the CAs in NODE_EXTRA_CA_CERTS, and a certificate nobody vouches for fails as unreachable', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'beans-https-'));
    try {
      const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) => res.end('secure hello'));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      // NODE_EXTRA_CA_CERTS is read when Node starts: each case is its own process.
      // The child prints the body, or the error with its cause (plain data classifyError reads).
      const script = `const { httpFetch } = await import(${JSON.stringify(HTTP_FETCH)});
        try { console.log(await (await httpFetch(${JSON.stringify(url)})).text()); }
        catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message, cause: { name: e.cause?.name, message: e.cause?.message, code: e.cause?.code } })); }`;
      const run = (env: NodeJS.ProcessEnv) =>
        new Promise<string>((resolve, reject) =>
          execFile(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...env } }, (error, stdout) =>
            error ? reject(error) : resolve(stdout.trim()),
          ),
        );
      expect(await run({ NODE_EXTRA_CA_CERTS: cert })).toBe('secure hello');
      const refused = JSON.parse(await run({})) as unknown;
      expect(refused).toMatchObject({ message: 'fetch failed', cause: { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' } });
      expect(classifyError(refused)).toMatchObject({ kind: 'unreachable', detail: 'self-signed TLS certificate', retryable: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
