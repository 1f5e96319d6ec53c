// Runners (issue 56), the sessions seen from anywhere, against a real PostgreSQL (a cluster per file,
// a database per test): what --background queues and refuses, the database from the settings,
// `attach` and the web view's API answering a session's question, and the exit codes of `sessions wait`.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresForFile } from '../support/postgres-per-file.ts';
import { startBeansServer } from '../support/beans-server.ts';
import { chromiumMissing, openBrowser, screenshot } from '../support/browser.ts';
import { BEANS_BIN, runBeans, scriptedOllama } from './harness.ts';
import { git, makeFleet, runnerHome, startRunner, tracked, until } from './runner-fixtures.ts';

const { unavailable, database } = postgresForFile('sessions');
if (unavailable) console.warn(`runner tests skipped: ${unavailable}`);

describe.skipIf(unavailable)('background sessions from anywhere', { timeout: 120_000 }, () => {
  it('attach follows a session from the database and answers its permission question; wait exits with its code', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const model = await scriptedOllama({
      turns: [
        { text: 'I will write it.', toolCalls: [{ name: 'write_file', args: { path: 'asked.txt', content: 'allowed\n' } }] },
        { text: 'Done after asking.' },
      ],
    });
    await startRunner(runnerHome(url, model), 'r1');
    const queued = await runBeans(['-p', 'write asked.txt', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    const session = queued.stdout.trim();
    const attach = tracked(spawn(BEANS_BIN, ['attach', session.slice(0, 8)], { cwd: fleet.repo.dir, env: fleet.env, stdio: ['pipe', 'pipe', 'pipe'] }));
    let out = '';
    attach.stdout!.on('data', (chunk) => (out += chunk));
    await until(() => out.includes('? Allow write_file asked.txt'), 40_000);
    const shown = JSON.parse((await runBeans(['sessions', 'show', session, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(shown.state).toBe('waiting');
    attach.stdin!.write('y\n');
    const code = await new Promise<number | null>((resolve) => attach.once('close', resolve));
    expect(out).toContain('allowed');
    expect(out).toContain('Done after asking.');
    expect(out).toContain(`branch beans/${session}`);
    expect(code).toBe(0);
    expect(git(fleet.origin, 'show', `beans/${session}:asked.txt`)).toBe('allowed');
  });

  it("beans serve with the database shows a runner's session to the web view's API: listed, its events followed, its question answered there", async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const model = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'write_file', args: { path: 'web.txt', content: 'answered on the web\n' } }] }, { text: 'Done after the web answered.' }],
    });
    await startRunner(runnerHome(url, model), 'r1');
    const id = (await runBeans(['-p', 'write web.txt', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim();
    const beans = await startBeansServer({ cwd: fleet.repo.dir, env: fleet.env });
    try {
      const asked = await beans.events(id, (events) => events.some((event) => event.data.type === 'permission_request'), { timeoutMs: 40_000 });
      const question = asked.find((event) => event.data.type === 'permission_request')!.data;
      expect(question).toMatchObject({ tool_name: 'write_file', input: { path: 'web.txt' }, session_id: id });
      const listed = (await beans.api('GET', 'v1/sessions')).body.sessions;
      expect(listed).toContainEqual(expect.objectContaining({ id, state: 'waiting', runner: 'r1', branch: `beans/${id}` }));
      // Driven from its runner, not from here.
      expect((await beans.api('POST', `v1/sessions/${id}/messages`, { text: 'hi' })).status).toBe(409);
      expect((await beans.api('POST', `v1/sessions/${id}/permissions/not-asked`, { behavior: 'allow' })).status).toBe(404);
      expect((await beans.api('POST', `v1/sessions/${id}/permissions/${question.request_id}`, { behavior: 'allow' })).status).toBe(200);
      expect((await beans.api('POST', `v1/sessions/${id}/permissions/${question.request_id}`, { behavior: 'deny' })).status).toBe(409);
      // The stream goes on from the question (Last-Event-ID as the page sends it) to the end.
      const rest = await beans.events(id, (events) => events.some((event) => event.data.type === 'result'), {
        lastEventId: asked.at(-1)!.id,
        timeoutMs: 40_000,
      });
      expect(rest[0]!.id).toBeGreaterThan(asked.at(-1)!.id);
      expect(rest.find((event) => event.data.type === 'result')!.data).toMatchObject({ result: 'Done after the web answered.' });
      expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).code).toBe(0);
      expect((await beans.api('GET', `v1/sessions/${id}`)).body).toMatchObject({ id, state: 'done', exitCode: 0 });
      expect(git(fleet.origin, 'show', `beans/${id}:web.txt`)).toBe('answered on the web');
    } finally {
      await beans.stop('SIGTERM');
    }
  });

  it.skipIf(chromiumMissing)("the web view of beans serve with the database: a runner's session in the list, its question answered with Allow", async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const model = await scriptedOllama({
      turns: [
        { toolCalls: [{ name: 'write_file', args: { path: 'page.txt', content: 'allowed in the page\n' } }] },
        { text: 'Written after the page allowed it.' },
      ],
    });
    await startRunner(runnerHome(url, model), 'r1');
    const id = (await runBeans(['-p', 'write page.txt', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim();
    // The person's own server, with a model of its own (the page lists its models).
    const beans = await startBeansServer({ cwd: fleet.repo.dir, env: { ...fleet.env, OLLAMA_HOST: model.url } });
    const browser = await openBrowser();
    try {
      const { page } = browser;
      await page.goto(`${beans.url}#token=${beans.token}`);
      await page.getByRole('navigation', { name: 'Sessions' }).getByText('write page.txt').click();
      const question = page.getByRole('group', { name: /Allow write_file/ });
      await question.waitFor({ timeout: 40_000 });
      await page.getByText(`on branch beans/${id}`).waitFor();
      await screenshot(browser, 'web-view-runner.png');
      // Driven by its runner: no message box, no End button.
      expect(await page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'End session' }).count()).toBe(0);
      await question.getByRole('button', { name: 'Allow', exact: true }).click();
      await page.getByText('Written after the page allowed it.').waitFor({ timeout: 40_000 });
      expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).code).toBe(0);
      expect(git(fleet.origin, 'show', `beans/${id}:page.txt`)).toBe('allowed in the page');
      expect(browser.problems).toEqual([]);
    } finally {
      await browser.close();
      await beans.stop('SIGTERM');
    }
  });

  it('sessions wait exits 4 for a session that reached its turn limit, 3 for one the runner refuses', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const model = await scriptedOllama({ turns: () => ({ toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }] }) });
    await startRunner(runnerHome(url, model), 'r1');
    const limited = (
      await runBeans(['-p', 'read forever', '--max-turns', '2', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })
    ).stdout.trim();
    expect((await runBeans(['sessions', 'wait', limited], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 })).code).toBe(4);
    const refused = (await runBeans(['-p', 'anything', '--yolo', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim();
    expect((await runBeans(['sessions', 'wait', refused], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 })).code).toBe(3);
    const shown = (await runBeans(['sessions', 'show', refused], { cwd: fleet.repo.dir, env: fleet.env })).stdout;
    expect(shown).toMatch(/state +failed/);
    expect(shown).toContain('does not run sessions in permission mode yolo');
  });

  it('workflows.databaseUrl in the settings does what BEANS_DATABASE_URL does, for the submitter and the runner', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    delete fleet.env.BEANS_DATABASE_URL;
    mkdirSync(path.join(fleet.repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(fleet.repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify({ workflows: { databaseUrl: url } }));
    const model = await scriptedOllama({ turns: [{ text: 'from the settings' }] });
    const machine = runnerHome(url, model, { workflows: { databaseUrl: url }, runners: { sandbox: false } });
    delete machine.env.BEANS_DATABASE_URL;
    await startRunner(machine, 'r1');
    const queued = await runBeans(['-p', 'hi', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    expect(queued.code, queued.stderr).toBe(0);
    const id = queued.stdout.trim();
    expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 60_000 })).code).toBe(0);
    expect(JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout)).toMatchObject({
      state: 'done',
      runner: 'r1',
      result: { text: 'from the settings' },
    });
  });

  it('--background returns at once with no runner up (the session waits queued); refuses a folder a runner could not work from; warns of uncommitted changes', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const queued = await runBeans(['-p', 'later', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    expect(queued.code, queued.stderr).toBe(0);
    const show = await runBeans(['sessions', 'show', queued.stdout.trim(), '--json'], { cwd: fleet.repo.dir, env: fleet.env });
    // The id alone on stdout, even on a fresh database DBOS migrates first (it printed "Running DBOS system database migrations..." there).
    expect(queued.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    expect(show.code, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout);
    expect(shown).toMatchObject({ state: 'queued', baseCommit: fleet.head });
    expect(shown.runner).toBeUndefined();
    // Uncommitted changes are not part of it, and it says so.
    writeFileSync(path.join(fleet.repo.dir, 'README.md'), '# changed, not committed\n');
    const dirty = await runBeans(['-p', 'dirty', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    expect(dirty.code).toBe(0);
    expect(dirty.stderr).toContain('uncommitted changes in this folder are not part of the session');
    // A commit origin lacks: push first.
    git(fleet.repo.dir, 'commit', '-qam', 'local only');
    const unpushed = await runBeans(['-p', 'unpushed', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    expect(unpushed.code).toBe(2);
    expect(unpushed.stderr.trim().split('\n')).toHaveLength(1);
    expect(unpushed.stderr).toMatch(/is not on origin as far as this clone knows: push it first/);
    // No origin at all.
    git(fleet.repo.dir, 'remote', 'remove', 'origin');
    const noOrigin = await runBeans(['-p', 'nowhere', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
    expect(noOrigin.code).toBe(2);
    expect(noOrigin.stderr).toContain('no remote named origin');
    const listed = JSON.parse((await runBeans(['sessions', 'list', '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(listed.background).toHaveLength(2);
    // An id nobody knows: the database's answer, not "start beans serve".
    for (const command of [['sessions', 'wait'], ['sessions', 'show'], ['attach']]) {
      const unknown = await runBeans([...command, 'no-such-session'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr.trim()).toBe(
        "beans: No background session no-such-session in the runners' database (and no Beans server runs on this machine to look on).",
      );
    }
  });

  it('sessions wait exits 1 for a session whose model fails, and show says why', async () => {
    const url = await database();
    const fleet = makeFleet(url);
    const model = await scriptedOllama({ turns: [{ text: 'unused' }] });
    const machine = runnerHome(url, model, { runners: { sandbox: false } });
    // The runner's model server is gone: every request fails.
    machine.env.OLLAMA_HOST = 'http://127.0.0.1:1';
    await startRunner(machine, 'r1');
    const id = (await runBeans(['-p', 'fail', '--background'], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 30_000 })).stdout.trim();
    expect((await runBeans(['sessions', 'wait', id], { cwd: fleet.repo.dir, env: fleet.env, timeoutMs: 90_000 })).code).toBe(1);
    const shown = JSON.parse((await runBeans(['sessions', 'show', id, '--json'], { cwd: fleet.repo.dir, env: fleet.env })).stdout);
    expect(shown).toMatchObject({ state: 'failed', exitCode: 1, runner: 'r1' });
  });
});
