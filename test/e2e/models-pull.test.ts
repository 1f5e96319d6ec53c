import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tinyLlamaGguf } from '../support/gguf.ts';
import { testCertificate } from '../support/tls.ts';
import { makeTempRepo as makeRepo, runBeans } from './harness.ts';

// `beans models pull` against a file server on 127.0.0.1 that speaks Range requests, can cut a
// transfer halfway, and answers like Hugging Face (a repository file list, X-Linked-ETag). It is
// https (a certificate Beans is told to trust): over plain http only --sha256 counts (issue 53 item 6,
// security-downloads.test.ts).

function makeTempRepo() {
  const repo = makeRepo();
  repo.env.NODE_EXTRA_CA_CERTS = testCertificate().certFile;
  return repo;
}

const model = tinyLlamaGguf({ seed: 11 });
const sha256 = createHash('sha256').update(model).digest('hex');

interface FileServer {
  url: string;
  ranges: (string | undefined)[];
  /** Cut the next transfers of the model after this many bytes each, one entry a transfer. */
  cuts: number[];
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function fileServer(): Promise<FileServer> {
  const state: FileServer = { url: '', ranges: [], cuts: [] };
  const server = createServer({ cert: testCertificate().cert, key: testCertificate().key }, (req, res) => {
    const url = req.url ?? '';
    if (url === '/api/models/tester/tiny-GGUF/revision/main') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ siblings: [{ rfilename: 'README.md' }, { rfilename: 'tiny-F16.gguf' }, { rfilename: 'tiny-Q8_0.gguf' }] }));
      return;
    }
    if (url !== '/files/tiny.gguf' && url !== '/tester/tiny-GGUF/resolve/main/tiny-Q8_0.gguf') {
      res.writeHead(404).end('Entry not found');
      return;
    }
    state.ranges.push(req.headers.range);
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    const body = model.subarray(from);
    const headers = { 'content-length': String(body.length), 'x-linked-etag': `"${sha256}"`, 'accept-ranges': 'bytes' };
    if (from > 0) res.writeHead(206, { ...headers, 'content-range': `bytes ${from}-${model.length - 1}/${model.length}` });
    else res.writeHead(200, headers);
    const cut = state.cuts.shift();
    if (cut !== undefined) {
      res.write(body.subarray(0, cut), () => setTimeout(() => res.destroy(), 50));
      return;
    }
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** The progress lines come first on stderr; the failure is the last line. */
function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

function modelsDir(home: string): string {
  return path.join(home, '.cache', 'beans-agent', 'models');
}

describe('beans models pull', () => {
  it('resumes a cut transfer by itself with range requests and verifies the server checksum', async () => {
    const server = await fileServer();
    const repo = makeTempRepo();
    server.cuts = [150_000, 100_000];
    const run = await runBeans(['models', 'pull', `${server.url}/files/tiny.gguf`], { cwd: repo.dir, env: repo.env });
    expect(run.stderr).not.toContain('run the same command again');
    expect(run.code).toBe(0);
    expect(run.stderr.match(/resuming at/g)).toHaveLength(2);
    // Each try resumes at what the part holds on disk: up to the cut (fetch drops the chunks it still
    // queued when the connection fails, more of them on a loaded machine), never past it.
    expect(server.ranges[0]).toBeUndefined();
    const [second, third] = server.ranges.slice(1).map((range) => Number(/^bytes=(\d+)-$/.exec(range ?? '')?.[1]));
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThanOrEqual(150_000);
    expect(third).toBeGreaterThan(second!);
    expect(third).toBeLessThanOrEqual(second! + 100_000);
    expect(run.stdout).toContain("checksum verified against the server's");
    const dir = modelsDir(repo.home);
    expect(readdirSync(dir)).toEqual(['tiny.gguf']);
    expect(
      createHash('sha256')
        .update(readFileSync(path.join(dir, 'tiny.gguf')))
        .digest('hex'),
    ).toBe(sha256);
    const again = await runBeans(['models', 'pull', `${server.url}/files/tiny.gguf`], { cwd: repo.dir, env: repo.env });
    expect(again.stdout).toContain('Already downloaded');
  });

  it('a transfer cut on every try stops after four and leaves the part; the same command resumes it', async () => {
    const server = await fileServer();
    const repo = makeTempRepo();
    server.cuts = [50_000, 50_000, 50_000, 50_000];
    const first = await runBeans(['models', 'pull', `${server.url}/files/tiny.gguf`], { cwd: repo.dir, env: repo.env });
    expect(first.code).toBe(1);
    expect(server.ranges).toHaveLength(4);
    expect(first.stderr).toMatch(/beans: The download of .*tiny\.gguf (was cut after|stopped at) .*run the same command again to resume it\./);
    const dir = modelsDir(repo.home);
    expect(readdirSync(dir)).toEqual(['tiny.gguf.part']); // never a half file under the final name
    const second = await runBeans(['models', 'pull', `${server.url}/files/tiny.gguf`], { cwd: repo.dir, env: repo.env });
    expect(second.stderr).toContain('resuming at');
    expect(second.code).toBe(0);
    expect(server.ranges.at(-1)).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(server.ranges.at(-1)!)![0])).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['tiny.gguf']);
  });

  it('refuses a wrong checksum and keeps nothing', async () => {
    const server = await fileServer();
    const repo = makeTempRepo();
    const run = await runBeans(['models', 'pull', `${server.url}/files/tiny.gguf`, '--sha256', '0'.repeat(64)], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toBe(
      `beans: The download of ${server.url}/files/tiny.gguf does not match its checksum (expected SHA-256 ${'0'.repeat(64)}, got ${sha256}); it was not kept.`,
    );
    expect(readdirSync(modelsDir(repo.home))).toEqual([]);
  });

  it('a 404 is one sentence, exit 3', async () => {
    const server = await fileServer();
    const repo = makeTempRepo();
    const run = await runBeans(['models', 'pull', `${server.url}/files/nothing.gguf`], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr.trim()).toBe(
      `beans: There is no model at ${server.url}/files/nothing.gguf (HTTP 404 from ${new URL(server.url).host}); check the repository, file or quant name.`,
    );
  });

  it('a full disk is one sentence and leaves the part to resume', async () => {
    const server = await fileServer();
    const repo = makeTempRepo();
    const dir = modelsDir(repo.home);
    mkdirSync(dir, { recursive: true });
    symlinkSync('/dev/full', path.join(dir, 'tiny.gguf.part')); // every write fails with ENOSPC
    const run = await runBeans(['models', 'pull', `${server.url}/files/tiny.gguf`], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toMatch(
      /^beans: The disk is full: .* has no room for the rest of .*tiny\.gguf \(0 bytes written so far\)\. Free some space and run the same command again to resume\.$/,
    );
    expect(existsSync(path.join(dir, 'tiny.gguf'))).toBe(false);
  });

  it('finds a quant in a Hugging Face repository (HF_ENDPOINT), then lists it beside the provider models', async () => {
    const server = await fileServer();
    const repo = makeTempRepo();
    const env = { ...repo.env, HF_ENDPOINT: server.url };
    const run = await runBeans(['models', 'pull', 'hf:tester/tiny-GGUF:Q8_0'], { cwd: repo.dir, env });
    expect(run.stderr).toContain(`Downloading ${server.url}/tester/tiny-GGUF/resolve/main/tiny-Q8_0.gguf`);
    expect(run.code).toBe(0);
    expect(readdirSync(modelsDir(repo.home))).toEqual(['hf_tester_tiny-GGUF-Q8_0.gguf']);
    const list = await runBeans(['models', 'list', '--provider', 'local'], { cwd: repo.dir, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('hf_tester_tiny-GGUF-Q8_0.gguf');
    const missing = await runBeans(['models', 'pull', 'hf:tester/tiny-GGUF:Q2_K'], { cwd: repo.dir, env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('hf:tester/tiny-GGUF has no .gguf file for "Q2_K". It has: tiny-F16.gguf, tiny-Q8_0.gguf.');
  });
});
