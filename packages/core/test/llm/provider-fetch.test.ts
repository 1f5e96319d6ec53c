// llm/provider-fetch.ts: http-fetch.ts's transport answering with llm/fetch-response.ts's Response,
// as the ollama, Anthropic and Gemini clients use it. The transport's own cases are in
// http-fetch.test.ts; these check that the undici-free Response carries them the same way:
// headers and set-cookie, a stream read chunk by chunk, aborts and cut bodies classified as before,
// decoded bodies, null bodies, redirects.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FetchResponse } from '../../src/llm/fetch-response.js';
import { classifyError } from '../../src/llm/failures.js';
import { providerFetch } from '../../src/llm/provider-fetch.js';
import { rejection, serve, streamedBodyCases, withLocalServersOnly } from './http-test-server.js';

withLocalServersOnly();

describe('providerFetch', () => {
  it('answers with the undici-free Response: status, headers with set-cookie apart, url, JSON body', async () => {
    const { url } = await serve((req, res, body) => {
      res.writeHead(201, 'Made', [
        ['content-type', 'application/json'],
        ['X-Request-Id', 'r-1'],
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ]);
      res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization, body: JSON.parse(body) }));
    });
    const response = await providerFetch(`${url}/v1/chat`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: JSON.stringify({ hi: 'é' }) });
    expect(response).toBeInstanceOf(FetchResponse);
    expect(response instanceof globalThis.Response).toBe(false);
    expect([response.status, response.statusText, response.ok, response.url, response.redirected, response.type]).toEqual([
      201,
      'Made',
      true,
      `${url}/v1/chat`,
      false,
      'default',
    ]);
    expect(response.headers.get('x-request-id')).toBe('r-1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ method: 'POST', auth: 'Bearer k', body: { hi: 'é' } });
    expect(response.bodyUsed).toBe(true);
  });

  streamedBodyCases(providerFetch);

  it('a body cut short is a retryable dropped connection, through text() as through the stream', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"message":"partial"}\n', () => res.socket?.destroy());
    });
    const error = await rejection((await providerFetch(url)).text());
    expect(classifyError(error)).toMatchObject({ kind: 'network', retryable: true });
  });

  it('decodes gzip, gives a null body for 204 and error statuses as responses', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/gzip') res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"zipped":true}'));
      else if (req.url === '/empty') res.writeHead(204).end();
      else res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' }).end('{"error":"slow down"}');
    });
    expect(await (await providerFetch(`${url}/gzip`)).json()).toEqual({ zipped: true });
    const empty = await providerFetch(`${url}/empty`);
    expect([empty.status, empty.body, await empty.text()]).toEqual([204, null, '']);
    const limited = await providerFetch(`${url}/limited`);
    expect([limited.status, limited.ok, limited.headers.get('retry-after'), await limited.json()]).toEqual([429, false, '3', { error: 'slow down' }]);
  });

  it('a redirected answer knows its final url', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/old') res.writeHead(308, { location: '/new' }).end();
      else res.end(req.url);
    });
    const response = await providerFetch(`${url}/old`, { method: 'POST', body: 'x' });
    // A clone keeps what the fetch knew.
    const copy = response.clone();
    expect([response.redirected, response.url, await response.text()]).toEqual([true, `${url}/new`, '/new']);
    expect([copy.redirected, copy.url, await copy.text()]).toEqual([true, `${url}/new`, '/new']);
  });
});
