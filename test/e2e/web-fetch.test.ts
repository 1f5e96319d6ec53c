// Issue 18: web_fetch through the built bin/beans, against a local HTTP server that a user setting
// (webFetch.allowPrivateNetwork) lets Beans reach.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startPageServer, type PageHandler, type PageServer } from '../support/page-server.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const servers: PageServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function site(routes: Record<string, PageHandler>): Promise<PageServer> {
  const server = await startPageServer(routes);
  servers.push(server);
  return server;
}

/** The user's own settings (not the repository's, which an untrusted folder could not use to loosen Beans). */
function userSettings(repo: TempRepo, settings: unknown): void {
  const dir = path.join(repo.home, '.config', 'beans-agent');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
}

interface ChatBody {
  messages: { role: string; content: string }[];
}

/** One-shot: the model fetches `url`, then answers; returns the run and what the tool gave the model. */
async function fetchOnce(repo: TempRepo, url: string, args: string[] = ['--allowed-tools', 'web_fetch(domain:127.0.0.1)']) {
  const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'web_fetch', args: { url, prompt: 'What is on the page?' } }] }, { text: 'done' }] });
  const run = await runBeans(['-p', 'read the page', '-o', 'json', ...args], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url },
    timeoutMs: 40_000,
  });
  const chats = server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as ChatBody);
  const toolResult = chats[1]?.messages.find((message) => message.role === 'tool')?.content ?? '';
  return { run, result: JSON.parse(run.stdout) as { subtype: string; permission_denials: { tool_name: string; tool_input: unknown }[] }, toolResult };
}

const ARTICLE = `<!doctype html><html><head><title>Release notes</title></head><body><nav><a href="/">Home</a> · <a href="/blog">Blog</a></nav>
<main><article><h1>Release notes</h1><p>Version 2 adds <em>streaming</em> and <strong>retries</strong>. ${'Each request is retried with backoff when the server is busy. '.repeat(10)}</p>
<h2>Upgrading</h2><p>Read <a href="/docs/upgrade">the upgrade guide</a> first.</p><pre><code>npm install thing@2</code></pre></article></main>
<footer>© footer text</footer><script>track()</script></body></html>`;

describe('web_fetch end to end', () => {
  it('turns an HTML page into Markdown for the model', async () => {
    const web = await site({ '/notes': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE) });
    const repo = makeTempRepo();
    userSettings(repo, { webFetch: { allowPrivateNetwork: true } });
    const { run, toolResult } = await fetchOnce(repo, `${web.base}/notes`);
    expect(run.code).toBe(0);
    expect(toolResult).toContain('Asked of this page: What is on the page?');
    expect(toolResult).toContain('Title: Release notes');
    expect(toolResult).toContain('Version 2 adds *streaming* and **retries**.');
    expect(toolResult).toContain('## Upgrading');
    expect(toolResult).toContain(`[the upgrade guide](${web.base}/docs/upgrade)`);
    expect(toolResult).toContain('```\nnpm install thing@2\n```');
    expect(toolResult).not.toContain('track()');
  });

  it('follows a redirect chain on the same host', async () => {
    const web = await site({
      '/a': (_req, res) => res.writeHead(301, { location: '/b' }).end(),
      '/b': (_req, res) => res.writeHead(307, { location: `/c` }).end(),
      '/c': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('arrived at c'),
    });
    const repo = makeTempRepo();
    userSettings(repo, { webFetch: { allowPrivateNetwork: true } });
    const { toolResult } = await fetchOnce(repo, `${web.base}/a`);
    expect(web.hits).toEqual(['/a', '/b', '/c']);
    expect(toolResult).toContain(`URL: ${web.base}/c`);
    expect(toolResult).toContain('arrived at c');
  });

  it('caps a 50 MB page at the size limit and stops downloading', async () => {
    const paragraph = Buffer.from(`<p>${'filler words for a very long page '.repeat(30)}</p>\n`);
    const web = await site({
      '/huge': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        let sent = 0;
        const pump = () => {
          while (sent < 50 * 1024 * 1024 && !res.destroyed) {
            sent += paragraph.length;
            if (!res.write(paragraph)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.write('<html><body><article>');
        pump();
      },
    });
    const repo = makeTempRepo();
    userSettings(repo, { webFetch: { allowPrivateNetwork: true, maxBytes: 2 * 1024 * 1024 } });
    const { run, toolResult } = await fetchOnce(repo, `${web.base}/huge`);
    expect(run.code).toBe(0);
    expect(toolResult).toContain('only the first 2.0 MB were read; the page is longer');
    expect(toolResult).toContain('filler words for a very long page');
    expect(web.bytesSent()).toBeLessThan(20 * 1024 * 1024);
  });

  it('gives up on a page that never answers after webFetch.timeoutMs', async () => {
    const web = await site({ '/slow': () => undefined });
    const repo = makeTempRepo();
    userSettings(repo, { webFetch: { allowPrivateNetwork: true, timeoutMs: 1000 } });
    const { run, toolResult } = await fetchOnce(repo, `${web.base}/slow`);
    expect(run.code).toBe(0);
    expect(toolResult).toContain('did not load within 1 s');
    expect(run.durationMs).toBeLessThan(15_000);
  });

  it('refuses a private address without the setting, and a repository cannot grant it to itself', async () => {
    const web = await site({ '/admin': (_req, res) => res.end('internal secrets') });
    const repo = makeTempRepo({ '.beans/settings.json': JSON.stringify({ webFetch: { allowPrivateNetwork: true } }) });
    const { run, toolResult } = await fetchOnce(repo, `${web.base}/admin`);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('webFetch.allowPrivateNetwork');
    expect(toolResult).toContain('(loopback)');
    expect(toolResult).toContain('web_fetch refused it');
    expect(toolResult).not.toContain('internal secrets');
    expect(web.hits).toEqual([]);
  });

  it('one-shot: a new domain is denied unless a domain rule allows it (Claude Code form too)', async () => {
    const web = await site({ '/p': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('page text') });
    const repo = makeTempRepo();
    userSettings(repo, { webFetch: { allowPrivateNetwork: true } });
    const denied = await fetchOnce(repo, `${web.base}/p`, []);
    expect(denied.result.permission_denials).toEqual([
      { tool_name: 'web_fetch', tool_use_id: expect.any(String), tool_input: { url: `${web.base}/p`, prompt: 'What is on the page?' } },
    ]);
    expect(denied.toolResult).toContain('--allowed-tools "web_fetch(domain:127.0.0.1)"');
    const otherDomain = await fetchOnce(repo, `${web.base}/p`, ['--allowed-tools', 'web_fetch(domain:example.com)']);
    expect(otherDomain.result.permission_denials).toHaveLength(1);
    expect(web.hits).toEqual([]);
    const allowed = await fetchOnce(repo, `${web.base}/p`, ['--allowed-tools', 'WebFetch(domain:127.0.0.1)']);
    expect(allowed.result.permission_denials).toEqual([]);
    expect(allowed.toolResult).toContain('page text');
    const ruledOut = await fetchOnce(repo, `${web.base}/p`, ['--yolo', '--disallowed-tools', 'web_fetch(domain:127.0.0.1)']);
    expect(ruledOut.result.permission_denials).toHaveLength(1);
    expect(web.hits).toEqual(['/p']);
  });
});
