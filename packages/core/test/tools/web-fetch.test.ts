import zlib from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startPageServer, type PageHandler, type PageServer } from '../../../../test/support/page-server.ts';
import { createWebFetchTool, WEB_FETCH_CACHE_MS } from '../../src/tools/web-fetch.js';
import { checkLiteralAddress, guardedLookup, nonPublicRange, PrivateAddressError } from '../../src/tools/web-fetch-address.js';
import { contentText, toolDeclaration, type ToolResult } from '../../src/tools/tool.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

const servers: PageServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(routes: Record<string, PageHandler>): Promise<PageServer> {
  const server = await startPageServer(routes);
  servers.push(server);
  return server;
}

const html = (body: string, title = 'A page') =>
  `<!doctype html><html><head><title>${title}</title><style>p{}</style></head><body><nav><a href="/">Home</a></nav><article><h1>${title}</h1>${body}</article><script>alert(1)</script></body></html>`;
const ARTICLE = `<p>Beans reads <strong>web pages</strong> as Markdown; see <a href="/docs/install">the install guide</a>. ${'It keeps the article and drops the chrome around it. '.repeat(12)}</p><ul><li>first</li><li>second</li></ul><pre><code>pnpm install</code></pre>
<table><thead><tr><th>Option</th><th>Default</th></tr></thead><tbody><tr><td>timeout</td><td>30 s</td></tr></tbody></table>`;

const local = createWebFetchTool({ allowPrivateNetwork: true });
const text = (result: ToolResult) => contentText(result.content);

describe('web_fetch', () => {
  it('turns an HTML page into Markdown: title, article, absolute links, code; no scripts or styles', async () => {
    const site = await serve({
      '/guide': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(ARTICLE, 'Getting started')),
    });
    const result = await run(local, { url: site.url('/guide') }, makeContext(makeWorkspace()));
    expect(result.isError).toBeUndefined();
    const out = text(result);
    expect(out).toContain(`URL: ${site.url('/guide')}`);
    expect(out).toContain('Title: Getting started');
    expect(out).toContain('Beans reads **web pages** as Markdown');
    expect(out).toContain(`[the install guide](${site.url('/docs/install')})`);
    expect(out).toMatch(/- +first\n- +second/);
    expect(out).toContain('```\npnpm install\n```');
    expect(out).toContain('| Option | Default |\n| --- | --- |\n| timeout | 30 s |');
    expect(out).not.toContain('alert(1)');
    expect(out).not.toContain('p{}');
  });

  it('says so when a page has no readable text (drawn by scripts)', async () => {
    const site = await serve({
      '/app': (_req, res) =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>'),
    });
    const out = text(await run(local, { url: site.url('/app') }, makeContext(makeWorkspace())));
    expect(out).toContain('Title: App');
    expect(out).toContain('no readable text');
  });

  it('decompresses gzip pages and decodes their charset', async () => {
    const body = zlib.gzipSync(
      Buffer.from(html('<p>caf\xe9 cr\xe8me br\xfbl\xe9e, a long enough paragraph to count as the article of this small page.</p>'), 'latin1'),
    );
    const site = await serve({
      '/gz': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1', 'content-encoding': 'gzip' }).end(body),
    });
    expect(text(await run(local, { url: site.url('/gz') }, makeContext(makeWorkspace())))).toContain('café crème brûlée');
  });

  it('returns plain text and JSON as they are, and refuses binary content', async () => {
    const site = await serve({
      '/a.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('line one\nline two'),
      '/a.json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
      '/a.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(2048)),
    });
    const ctx = makeContext(makeWorkspace());
    expect(text(await run(local, { url: site.url('/a.txt') }, ctx))).toContain('line one\nline two');
    expect(text(await run(local, { url: site.url('/a.json') }, ctx))).toContain('{"ok":true}');
    const png = await run(local, { url: site.url('/a.png') }, ctx);
    expect(png.isError).toBe(true);
    expect(text(png)).toContain('image/png');
  });

  it('follows a same-host redirect chain to the final page, and says where it landed', async () => {
    const site = await serve({
      '/old': (_req, res) => res.writeHead(301, { location: '/older' }).end(),
      '/older': (_req, res) => res.writeHead(302, { location: '/new' }).end(),
      '/new': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('the final page'),
    });
    const out = text(await run(local, { url: site.url('/old') }, makeContext(makeWorkspace())));
    expect(out).toContain(`URL: ${site.url('/new')}`);
    expect(out).toContain('the final page');
  });

  it('does not read the body of a redirect (an endless one would keep downloading in the background)', async () => {
    let redirectClosed = false;
    const site = await serve({
      '/r': (_req, res) => {
        res.writeHead(302, { location: '/done' });
        const chunk = Buffer.alloc(64 * 1024, 'z');
        const timer = setInterval(() => res.write(chunk), 1);
        res.on('close', () => {
          redirectClosed = true;
          clearInterval(timer);
        });
      },
      '/done': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('landed'),
    });
    const tool = createWebFetchTool({ allowPrivateNetwork: true, timeoutMs: 2000 });
    const result = await run(tool, { url: site.url('/r') }, makeContext(makeWorkspace()));
    expect(text(result)).toContain('landed');
    await vi.waitFor(() => expect(redirectClosed).toBe(true), { timeout: 2_000, interval: 10 });
  });

  it('an interrupt (Esc, Ctrl+C) aborts the fetch and reaches the executor as an abort, not a result', async () => {
    const site = await serve({ '/slow': () => undefined });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    await expect(run(local, { url: site.url('/slow') }, makeContext(makeWorkspace(), { signal: abort.signal }))).rejects.toThrow();
  });

  it('stops after the redirect limit', async () => {
    const site = await serve({ '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end() });
    const tool = createWebFetchTool({ allowPrivateNetwork: true, maxRedirects: 3 });
    const result = await run(tool, { url: site.url('/loop') }, makeContext(makeWorkspace()));
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('redirected more than 3 times');
    expect(site.count('/loop')).toBe(4);
  });

  it('hands a redirect to another host back to the model instead of following it', async () => {
    const site = await serve({ '/moved': (_req, res) => res.writeHead(301, { location: 'https://elsewhere.example/page' }).end() });
    const out = text(await run(local, { url: site.url('/moved') }, makeContext(makeWorkspace())));
    expect(out).toContain('redirects (HTTP 301) to another host: https://elsewhere.example/page');
    expect(out).toContain('Call web_fetch with that URL');
  });

  it('stops reading at the size cap and says the page is longer', async () => {
    let sent = 0;
    const site = await serve({
      '/huge': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => res.destroy());
        pump();
      },
    });
    const tool = createWebFetchTool({ allowPrivateNetwork: true, maxBytes: 1024 * 1024 });
    const out = text(await run(tool, { url: site.url('/huge') }, makeContext(makeWorkspace())));
    expect(out).toContain('only the first 1.0 MB were read');
    expect(out.length).toBeLessThan(1024 * 1024 + 500);
    // The download stopped early: far less than the 50 MB page went over the wire.
    expect(sent).toBeLessThan(20 * 1024 * 1024);
  });

  it('caps a gzip bomb by its decompressed size', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(30 * 1024 * 1024, 'a'));
    const site = await serve({ '/bomb': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(bomb) });
    const tool = createWebFetchTool({ allowPrivateNetwork: true, maxBytes: 512 * 1024 });
    const out = text(await run(tool, { url: site.url('/bomb') }, makeContext(makeWorkspace())));
    expect(out).toContain('only the first 512.0 KB were read');
  });

  it('gives up after the timeout with an error result', async () => {
    const site = await serve({ '/slow': () => undefined });
    const tool = createWebFetchTool({ allowPrivateNetwork: true, timeoutMs: 300 });
    const started = Date.now();
    const result = await run(tool, { url: site.url('/slow') }, makeContext(makeWorkspace()));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('did not load within');
  });

  it('reports an HTTP error status as an error result with the start of the answer', async () => {
    const site = await serve({});
    const result = await run(local, { url: site.url('/missing') }, makeContext(makeWorkspace()));
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('answered HTTP 404');
    expect(text(result)).toContain('no such page');
  });

  it('refuses loopback by default, by name and by address, before any request is made', async () => {
    const site = await serve({ '/': (_req, res) => res.end('secret') });
    const strict = createWebFetchTool();
    const ctx = makeContext(makeWorkspace());
    const byAddress = await run(strict, { url: site.url('/') }, ctx);
    expect(byAddress.isError).toBe(true);
    expect(text(byAddress)).toContain('webFetch.allowPrivateNetwork');
    const port = new URL(site.url('/')).port;
    const byName = await run(strict, { url: `http://localhost:${port}/` }, ctx);
    expect(byName.isError).toBe(true);
    expect(text(byName)).toContain('(loopback)');
    expect(site.count('/')).toBe(0);
  });

  it('connects by name through its own lookup when private addresses are allowed', async () => {
    const site = await serve({ '/named': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('reached by name') });
    const port = new URL(site.base).port;
    expect(text(await run(local, { url: `http://localhost:${port}/named` }, makeContext(makeWorkspace())))).toContain('reached by name');
  });

  it('never follows a redirect to another host (a private address included): the model gets the URL', async () => {
    const site = await serve({ '/go': (_req, res) => res.writeHead(302, { location: 'http://10.0.0.1/admin' }).end() });
    const out = text(await run(local, { url: site.url('/go') }, makeContext(makeWorkspace())));
    expect(out).toContain('another host: http://10.0.0.1/admin');
  });

  it('caches a page for 15 minutes within a session, and not across sessions', async () => {
    let now = 1_000_000;
    const site = await serve({ '/p': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('page') });
    const tool = createWebFetchTool({ allowPrivateNetwork: true, now: () => now });
    const ctx = makeContext(makeWorkspace());
    await run(tool, { url: site.url('/p') }, ctx);
    now += WEB_FETCH_CACHE_MS - 1000;
    const again = await run(tool, { url: site.url('/p'), prompt: 'What does it say?' }, ctx);
    expect(site.count('/p')).toBe(1);
    expect(text(again)).toContain('Asked of this page: What does it say?');
    await run(tool, { url: site.url('/p') }, makeContext(makeWorkspace()));
    expect(site.count('/p')).toBe(2);
    now += 2000;
    await run(tool, { url: site.url('/p') }, ctx);
    expect(site.count('/p')).toBe(3);
  });

  it('keeps the cache of a conversation within its size budget (oldest pages go first)', async () => {
    const big = 'b'.repeat(6 * 1024 * 1024);
    const site = await serve({ '/big': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(big) });
    const tool = createWebFetchTool({ allowPrivateNetwork: true });
    const ctx = makeContext(makeWorkspace());
    for (const query of ['a', 'b', 'c', 'a']) await run(tool, { url: site.url(`/big?${query}`) }, ctx);
    // Three 6 MB pages do not fit a 16 MB cache: the first was dropped, so fetching it again hits the server.
    expect(site.count('/big')).toBe(4);
    await run(tool, { url: `${site.url('/big?a')}#section` }, ctx);
    expect(site.count('/big')).toBe(4);
  });

  it('accepts only http and https URLs, and keeps its declaration small', () => {
    expect(local.schema!.safeParse({ url: 'file:///etc/passwd' }).success).toBe(false);
    expect(local.schema!.safeParse({ url: 'ftp://example.com/x' }).success).toBe(false);
    expect(local.schema!.safeParse({ url: 'https://example.com/x', prompt: 'q' }).success).toBe(true);
    expect(JSON.stringify(toolDeclaration(local)).length).toBeLessThan(500);
    expect(local.ruleSubject!({ url: 'https://Docs.Example.com:8443/a' })).toBe('docs.example.com');
  });
});

describe('private address checks', () => {
  it('classify loopback, private, link-local, unique-local and mapped addresses as not public', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
    ]) {
      expect(nonPublicRange(address), address).toBeDefined();
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) expect(nonPublicRange(address), address).toBeUndefined();
  });

  it('refuse literal addresses in URLs (Node connects to those without a lookup)', () => {
    expect(() => checkLiteralAddress('169.254.169.254', false)).toThrow(PrivateAddressError);
    expect(() => checkLiteralAddress('[::1]', false)).toThrow(PrivateAddressError);
    expect(() => checkLiteralAddress('127.0.0.1', true)).not.toThrow();
    expect(() => checkLiteralAddress('example.com', false)).not.toThrow();
  });

  it('refuse a name that resolves to a private address at connection time', async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup(false)('localhost', {}, (err) => resolve(err)));
    expect(error).toBeInstanceOf(PrivateAddressError);
    const ok = await new Promise<Error | null>((resolve) => guardedLookup(true)('localhost', {}, (err) => resolve(err)));
    expect(ok).toBeNull();
  });
});
