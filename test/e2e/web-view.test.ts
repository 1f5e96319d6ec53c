// The web view (issue 55) in a real browser: Debian's Chromium driven by playwright-core against the
// built `beans serve`, whose sessions talk to a scripted Ollama. A person's path through the page:
// start a session, read the streamed Markdown answer, approve a write and find the file, stop a slow
// turn, complete `@` file names, send a picture, ride out a dropped connection, use it on a phone.
// Every request the browser makes is recorded: none leaves for another host, none carries the token
// in its URL.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chromiumMissing, openBrowser, type TestBrowser } from '../support/browser.ts';
import { startBeansServer, type BeansServer } from '../support/beans-server.ts';
import { processesLeft } from '../support/processes.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, scriptedOllama, type TempRepo } from './harness.ts';

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/images');
const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==', 'base64');

const open: { beans?: BeansServer; model?: ScriptedServer; browser?: TestBrowser; proxy?: Server }[] = [];
afterEach(async () => {
  for (const { beans, model, browser, proxy } of open.splice(0)) {
    await browser?.close();
    proxy?.close();
    await beans?.stop('SIGKILL');
    await model?.close();
  }
});

async function setUp(
  turns: ScriptTurn[],
  files: Record<string, string> = {},
  browserOptions: Parameters<typeof openBrowser>[0] = {},
): Promise<{ beans: BeansServer; model: ScriptedServer; repo: TempRepo; browser: TestBrowser }> {
  const repo = makeTempRepo(files);
  const model = await scriptedOllama({ turns });
  const beans = await startBeansServer({ cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: model.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
  const browser = await openBrowser(browserOptions);
  open.push({ beans, model, browser });
  return { beans, model, repo, browser };
}

/** Opens the page the way a person does: the printed address, token in the fragment. */
async function openPage(beans: BeansServer, browser: TestBrowser, fragmentRest = ''): Promise<void> {
  await browser.page.goto(`${beans.url}#token=${beans.token}${fragmentRest}`);
  await browser.page.getByRole('button', { name: 'New session' }).waitFor();
}

/** New session → Start, then the message typed and sent with Enter. */
async function startFromPage(browser: TestBrowser, message: string, permissions?: string): Promise<void> {
  const { page } = browser;
  await page.getByRole('button', { name: 'New session' }).click();
  if (permissions) await page.getByLabel('Permissions').selectOption(permissions);
  await page.getByRole('button', { name: 'Start' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor();
  await box.fill(message);
  await box.press('Enter');
}

function requestsElsewhere(browser: TestBrowser, beans: BeansServer): string[] {
  const origin = new URL(beans.url).origin;
  return browser.requests.map((request) => request.url).filter((url) => new URL(url).origin !== origin);
}

describe.skipIf(chromiumMissing)('the web view in Chromium', () => {
  it('starts a session from the page and streams a Markdown answer: code highlighted, a table, model HTML shown as text', async () => {
    const answer = [
      'Here is **the plan**.\n\n',
      '```ts\nconst answer: number = 42;\n```\n\n',
      '| file | lines |\n| --- | --- |\n| a.ts | 10 |\n\n',
      '<img src=x onerror="window.pwned=1"> and [a link](javascript:window.pwned=2) and [docs](https://example.com/docs) ',
      '![tracker](https://tracker.example/pixel.png)\n\nDone.',
    ];
    const { beans, browser, model } = await setUp([{ text: answer, chunkDelayMs: 300 }]);
    await openPage(beans, browser);
    const { page } = browser;
    await startFromPage(browser, 'Plan the work');
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect.poll(() => transcript.getByText('Plan the work').count()).toBe(1);
    // Streamed: the first words show while the rest is still coming.
    await transcript.getByText('the plan').waitFor();
    expect(await transcript.getByText('Done.').count()).toBe(0);
    await transcript.getByText('Done.').waitFor({ timeout: 15_000 });

    const code = transcript.locator('pre code');
    expect(await code.textContent()).toBe('const answer: number = 42;\n');
    expect(await code.locator('.hljs-keyword').first().textContent()).toBe('const');
    expect(await transcript.locator('table th').allTextContents()).toEqual(['file', 'lines']);
    // The model's HTML is text; its javascript: link is no link; its picture is a link, never loaded.
    await transcript.getByText('<img src=x onerror="window.pwned=1">').waitFor();
    expect(await transcript.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    const links = await transcript.locator('a').evaluateAll((anchors) => anchors.map((anchor) => [anchor.getAttribute('href'), anchor.getAttribute('rel')]));
    expect(links).toEqual([
      ['https://example.com/docs', 'noopener noreferrer nofollow'],
      ['https://tracker.example/pixel.png', 'noopener noreferrer nofollow'],
    ]);
    await page.getByText('Done in').waitFor();
    expect(await page.locator('.meta').textContent()).toMatch(/ollama · qwen3.*\$0\.00.*context \d/);

    // Only this server was asked, and never with the token in an address.
    expect(requestsElsewhere(browser, beans)).toEqual([]);
    expect(browser.requests.filter((request) => request.url.includes(beans.token))).toEqual([]);
    const apiRequests = browser.requests.filter((request) => new URL(request.url).pathname.startsWith('/v1/'));
    expect(apiRequests.length).toBeGreaterThan(3);
    for (const request of apiRequests) expect(request.headers.authorization).toBe(`Bearer ${beans.token}`);
    // The token left the address bar for this tab's session storage.
    expect(page.url()).not.toContain(beans.token);
    expect(await page.evaluate(() => sessionStorage.getItem('beans.token'))).toBe(beans.token);
    expect(beans.stderr()).not.toContain(beans.token);
    expect(JSON.stringify(model.requests)).not.toContain(beans.token);
    expect(browser.problems).toEqual([]);
    await page.screenshot({ path: '/tmp/shot1.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: '/tmp/shot2.png' });
  });
});
