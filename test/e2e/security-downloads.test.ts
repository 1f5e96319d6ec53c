// Issue 53 item 6: `beans models pull` over plain http. Anyone on the path can swap the file (and
// any checksum the server sends with it), so without `--sha256` nothing fetched over http is kept:
// not a plain http URL, not an https one that redirects to http, not an http HF_ENDPOINT.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tinyLlamaGguf } from '../support/gguf.ts';
import { hasOpenssl, testCertificate } from '../support/tls.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const model = tinyLlamaGguf({ seed: 5 });
const sha256 = createHash('sha256').update(model).digest('hex');

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

interface Files {
  url: string;
  hits: string[];
}

/** Serves the model at /m.gguf (with HF's checksum header at /etag.gguf), an HF file list, and redirects. */
async function files(tls: boolean, redirectTo?: () => string): Promise<Files> {
  const state: Files = { url: '', hits: [] };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    state.hits.push(url);
    if (url === '/api/models/tester/tiny-GGUF/revision/main')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"siblings":[{"rfilename":"tiny-Q8_0.gguf"}]}');
    if (url === '/redirect.gguf' && redirectTo) return void res.writeHead(302, { location: `${redirectTo()}/etag.gguf` }).end();
    if (url === '/m.gguf') return void res.writeHead(200, { 'content-length': String(model.length) }).end(model);
    if (url === '/etag.gguf' || url === '/tester/tiny-GGUF/resolve/main/tiny-Q8_0.gguf')
      return void res.writeHead(200, { 'content-length': String(model.length), 'x-linked-etag': `"${sha256}"` }).end(model);
    res.writeHead(404).end();
  };
  const server = tls ? createHttpsServer({ cert: testCertificate().cert, key: testCertificate().key }, handler) : createHttpServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function setup() {
  const repo = makeTempRepo();
  const env = { ...repo.env, ...(hasOpenssl ? { NODE_EXTRA_CA_CERTS: testCertificate().certFile } : {}) };
  const dir = path.join(repo.home, '.cache', 'beans-agent', 'models');
  const kept = () => (existsSync(dir) ? readdirSync(dir) : []);
  return { repo, env, kept };
}

describe('models pull refuses what plain http could have swapped', () => {
  it('an http URL without --sha256 is refused before anything is fetched (exit 2), with or without a server checksum', async () => {
    const server = await files(false);
    const { repo, env, kept } = setup();
    for (const file of ['/m.gguf', '/etag.gguf']) {
      const run = await runBeans(['models', 'pull', `${server.url}${file}`], { cwd: repo.dir, env });
      expect(run.code, file).toBe(2);
      expect(run.stderr.trim()).toMatch(/^beans: .*plain http.*--sha256/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(server.hits).toEqual([]);
    expect(kept()).toEqual([]);
  });

  it('an http HF_ENDPOINT without --sha256 is refused too (its X-Linked-ETag travels the same way)', async () => {
    const server = await files(false);
    const { repo, env, kept } = setup();
    const run = await runBeans(['models', 'pull', 'hf:tester/tiny-GGUF:Q8_0'], { cwd: repo.dir, env: { ...env, HF_ENDPOINT: server.url } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('plain http');
    expect(server.hits).toEqual([]);
    expect(kept()).toEqual([]);
  });

  it('an http URL with the right --sha256 is fetched and kept; a wrong one keeps nothing', async () => {
    const server = await files(false);
    const { repo, env, kept } = setup();
    const wrong = await runBeans(['models', 'pull', `${server.url}/m.gguf`, '--sha256', 'a'.repeat(64)], { cwd: repo.dir, env });
    expect(wrong.code).toBe(1);
    expect(kept()).toEqual([]);
    const right = await runBeans(['models', 'pull', `${server.url}/m.gguf`, '--sha256', sha256], { cwd: repo.dir, env });
    expect(right.code).toBe(0);
    expect(kept()).toEqual(['m.gguf']);
  });

  it.skipIf(!hasOpenssl)('an https URL that redirects to http is refused without --sha256, and keeps nothing', async () => {
    const plain = await files(false);
    const secure = await files(true, () => plain.url);
    const { repo, env, kept } = setup();
    const run = await runBeans(['models', 'pull', `${secure.url}/redirect.gguf`], { cwd: repo.dir, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('plain http');
    expect(plain.hits).toEqual([]);
    expect(kept()).toEqual([]);
  });

  it.skipIf(!hasOpenssl)("https with the server's checksum, and https redirecting to https, still work", async () => {
    const target = await files(true);
    const secure = await files(true, () => target.url);
    const { repo, env, kept } = setup();
    const run = await runBeans(['models', 'pull', `${secure.url}/redirect.gguf`], { cwd: repo.dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("checksum verified against the server's");
    expect(kept()).toEqual(['redirect.gguf']);
  });
});

describe('plugins are never fetched without encryption', () => {
  it('marketplace add and plugin install refuse http:// and git:// sources before connecting', async () => {
    const { createServer: createTcpServer } = await import('node:net');
    const connections: string[] = [];
    const tcp = createTcpServer((socket) => {
      connections.push('connected');
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const port = (tcp.address() as AddressInfo).port;
    try {
      const { repo, env } = setup();
      const beans = (...args: string[]) => runBeans(args, { cwd: repo.dir, env });
      for (const url of [`http://127.0.0.1:${port}/market.git`, `git://127.0.0.1:${port}/market.git`]) {
        const added = await beans('plugins', 'marketplace', 'add', url);
        expect(added.code, url).not.toBe(0);
        expect(added.stderr).toMatch(/without encryption/);
      }
      // A marketplace fetched safely whose manifest names plugins to fetch in the clear.
      const market = path.join(repo.home, 'market');
      mkdirSync(path.join(market, '.claude-plugin'), { recursive: true });
      writeFileSync(
        path.join(market, '.claude-plugin', 'marketplace.json'),
        JSON.stringify({
          name: 'clear-text',
          plugins: [
            { name: 'plain', source: `http://127.0.0.1:${port}/plain.git` },
            { name: 'gitproto', source: { source: 'url', url: `git://127.0.0.1:${port}/g.git` } },
          ],
        }),
      );
      execFileSync('git', ['init', '-q'], { cwd: market });
      execFileSync('git', ['add', '-A'], { cwd: market });
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'm'], { cwd: market });
      expect((await beans('plugins', 'marketplace', 'add', `file://${market}`)).code).toBe(0);
      for (const name of ['plain', 'gitproto']) {
        const installed = await beans('plugins', 'install', `${name}@clear-text`);
        expect(installed.code, name).not.toBe(0);
        expect(installed.stderr).toMatch(/without encryption/);
      }
      expect(connections).toEqual([]);
    } finally {
      tcp.close();
    }
  });
});
