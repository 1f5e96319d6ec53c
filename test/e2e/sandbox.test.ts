// --sandbox (issue 11): shell commands run in an OS sandbox that lets them write only in the
// workspace and the temp folder and reach only allowed hosts. A scripted model, a one-shot run,
// canaries outside the workspace and a server on this machine.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxUnavailable } from '../support/sandbox.ts';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

let server: http.Server;
let port: number;
let hits = 0;
beforeAll(async () => {
  server = http.createServer((_request, response) => {
    hits += 1;
    response.end('hello from the host');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function run(commands: string[], args: string[], userSettings?: unknown, files: Record<string, string> = {}) {
  const repo = makeTempRepo({ 'a.txt': 'a\n', ...files });
  const outside = path.join(path.dirname(repo.dir), 'outside');
  mkdirSync(outside, { recursive: true });
  if (userSettings) {
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify(userSettings));
  }
  // The temp folder the sandbox leaves writable is the system's (TMPDIR): point it below the test's
  // root so the canary folder next to it is outside both the workspace and the temp folder.
  const tmp = path.join(path.dirname(repo.dir), 'tmp');
  mkdirSync(tmp, { recursive: true });
  const expand = (command: string) => command.replaceAll('OUTSIDE', outside).replaceAll('PORT', String(port));
  const model = await scriptedOllama({
    turns: [{ toolCalls: commands.map((command) => ({ name: 'shell', args: { command: expand(command) } })) }, { text: 'done' }],
  });
  const result = await runBeans(['-p', 'go', '-o', 'json', ...args], {
    cwd: repo.dir,
    env: { ...repo.env, TMPDIR: tmp, OLLAMA_HOST: model.url },
    timeoutMs: 40_000,
  });
  return { result, repo, outside, json: result.code === 0 ? (JSON.parse(result.stdout) as { permission_denials: unknown[] }) : undefined };
}

const WRITES = [
  'touch OUTSIDE/canary',
  'touch inside.txt && mkdir -p "${TMPDIR:-/tmp}" && touch "${TMPDIR:-/tmp}/beans-sandbox-tmp-$$" && echo tmp-ok > tmp-result.txt',
];
// --noproxy '': use the sandbox's proxy even for 127.0.0.1 (inside the sandbox, loopback is its own).
const FETCH = [`curl -sS -m 5 --noproxy '' http://127.0.0.1:PORT/ > fetched.txt 2>&1; true`];

describe.skipIf(sandboxUnavailable)('--sandbox', () => {
  it('lets a command write in the workspace and temp folder, not outside, and runs it without asking', async () => {
    const { result, repo, outside, json } = await run(WRITES, ['--sandbox']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(outside, 'canary'))).toBe(false);
    expect(existsSync(path.join(repo.dir, 'inside.txt'))).toBe(true);
    expect(readFileSync(path.join(repo.dir, 'tmp-result.txt'), 'utf8')).toBe('tmp-ok\n');
    expect(json?.permission_denials).toHaveLength(0);
  });

  it('gives commands a temp folder of their own that works without /tmp/claude and is removed when the session ends (issue 34)', async () => {
    // The runtime's default TMPDIR is /tmp/claude, which it never creates; Beans must not depend on
    // whether something on this machine made it, nor create it, nor let commands write it.
    const claudeBefore = existsSync('/tmp/claude');
    const script = [
      'echo "$TMPDIR" > tmpdir.txt',
      'f=$(mktemp) && echo m > "$f" && echo mktemp-ok >> result.txt',
      'echo t > "$TMPDIR/own" && echo tmpdir-ok >> result.txt',
      `node -e "require('fs').writeFileSync(require('path').join(require('os').tmpdir(), 'n'), 'n')" && echo node-ok >> result.txt`,
      '(touch HOSTTMP/escape) 2>/dev/null || echo host-tmp-refused >> result.txt',
      '(mkdir -p /tmp/claude && touch /tmp/claude/beans-probe-$$) 2>/dev/null || echo claude-refused >> result.txt',
      'true',
    ].join('; ');
    const { result, repo } = await run([script.replaceAll('HOSTTMP', 'OUTSIDE/../tmp')], ['--sandbox']);
    expect(result.code, result.stderr).toBe(0);
    const tmpdir = readFileSync(path.join(repo.dir, 'tmpdir.txt'), 'utf8').trim();
    expect(tmpdir).not.toBe('/tmp/claude');
    // Made inside the TMPDIR Beans was given, and gone once the session ended.
    expect(tmpdir.startsWith(path.join(path.dirname(repo.dir), 'tmp') + path.sep)).toBe(true);
    expect(existsSync(tmpdir)).toBe(false);
    expect(readFileSync(path.join(repo.dir, 'result.txt'), 'utf8').split('\n').filter(Boolean)).toEqual([
      'mktemp-ok',
      'tmpdir-ok',
      'node-ok',
      'host-tmp-refused',
      ...(claudeBefore ? [] : ['claude-refused']),
    ]);
    expect(existsSync(path.join(path.dirname(repo.dir), 'tmp', 'escape'))).toBe(false);
    if (!claudeBefore) expect(existsSync('/tmp/claude')).toBe(false);
  });

  it('refuses a connection to a server on this machine unless its address is allowed', async () => {
    const before = hits;
    const refused = await run(FETCH, ['--sandbox']);
    expect(refused.result.code, refused.result.stderr).toBe(0);
    expect(readFileSync(path.join(refused.repo.dir, 'fetched.txt'), 'utf8')).not.toContain('hello from the host');
    expect(hits).toBe(before);

    const allowed = await run(FETCH, [], { sandbox: { enabled: true, allowedHosts: [`127.0.0.1:${port}`] } });
    expect(allowed.result.code, allowed.result.stderr).toBe(0);
    expect(readFileSync(path.join(allowed.repo.dir, 'fetched.txt'), 'utf8')).toBe('hello from the host');
    expect(hits).toBe(before + 1);
  });

  it('still applies deny rules to sandboxed commands', async () => {
    const { result, repo, json } = await run(['rm -f a.txt'], ['--sandbox', '--disallowed-tools', 'shell(rm *)']);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(repo.dir, 'a.txt'))).toBe(true);
    expect(json?.permission_denials).toHaveLength(1);
  });

  it('a sandboxed command, which runs without asking, cannot write the settings that would grant the next run more', async () => {
    const { result, repo } = await run(
      ['mkdir -p .beans; echo \'{"permissions":{"mode":"yolo"}}\' > .beans/settings.json; echo x > .git/hooks/post-checkout'],
      ['--sandbox'],
    );
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(repo.dir, '.beans', 'settings.json'))).toBe(false);
    expect(existsSync(path.join(repo.dir, '.git', 'hooks', 'post-checkout'))).toBe(false);
  });

  it('keeps a file that a read_file deny rule names from shell commands', async () => {
    const { result, repo } = await run(['cat .env > copy.txt 2>&1; true'], ['--sandbox', '--disallowed-tools', 'read_file(.env)'], undefined, {
      '.env': 'KEY=canary-secret\n',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(repo.dir, 'copy.txt'), 'utf8')).not.toContain('canary-secret');
  });

  it('exits 3 and says how to install bubblewrap when it is missing, running nothing', async () => {
    // A PATH with everything the real one has except bwrap.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'beans-nobwrap-'));
    const linked = new Set<string>();
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
      if (!dir || !existsSync(dir)) continue;
      for (const name of readdirSync(dir)) {
        if (name === 'bwrap' || linked.has(name)) continue;
        linked.add(name);
        symlinkSync(path.join(dir, name), path.join(bin, name));
      }
    }
    const repo = makeTempRepo();
    const outside = path.join(path.dirname(repo.dir), 'outside');
    const model = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'shell', args: { command: `mkdir -p ${outside}; touch ${outside}/canary` } }] }, { text: 'done' }],
    });
    const result = await runBeans(['-p', 'go', '--sandbox', '--yolo'], { cwd: repo.dir, env: { ...repo.env, PATH: bin, OLLAMA_HOST: model.url } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('bubblewrap');
    expect(result.stderr).toContain('apt-get install');
    expect(existsSync(path.join(outside, 'canary'))).toBe(false);
  });
});

describe('without --sandbox the same commands behave as before', () => {
  it('writes outside the workspace and reaches the local server under --yolo', async () => {
    const before = hits;
    const { result, repo, outside } = await run([...WRITES, ...FETCH], ['--yolo']);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(outside, 'canary'))).toBe(true);
    expect(existsSync(path.join(repo.dir, 'inside.txt'))).toBe(true);
    expect(readFileSync(path.join(repo.dir, 'fetched.txt'), 'utf8')).toBe('hello from the host');
    expect(hits).toBe(before + 1);
  });

  it('asks (one-shot: denies) shell commands in default mode', async () => {
    const { result, outside, json } = await run(WRITES, []);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(outside, 'canary'))).toBe(false);
    expect(json?.permission_denials).toHaveLength(2);
  });
});
