// The web view (issue 55) in a real browser: Debian's Chromium driven by playwright-core against the
// built `beans serve`, whose sessions talk to a scripted Ollama. A person's path through the page:
// start a session, read the streamed Markdown answer, approve a write and find the file, stop a slow
// turn, complete `@` file names, send a picture, ride out a dropped connection, use it on a phone.
// Every request the browser makes is recorded: none leaves for another host, none carries the token
// in its URL.
import { readFileSync } from 'node:fs';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chromiumMissing, openBrowser, screenshot, type TestBrowser } from '../support/browser.ts';
import { startBeansServer, type BeansServer } from '../support/beans-server.ts';
import { processesLeft } from '../support/processes.ts';
import type { ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, scriptedOllama, type TempRepo } from './harness.ts';

const PNG_1x1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==', 'base64');

const open: { beans?: BeansServer; model?: ScriptedServer; browser?: TestBrowser; proxy?: Server }[] = [];
afterEach(async (context) => {
  // What the server and the page said, when a step did not happen.
  if (context.task.result?.state === 'fail') {
    for (const { beans, browser } of open) {
      if (beans) console.error(`beans serve: exit ${beans.child.exitCode ?? beans.child.signalCode ?? 'none yet'}\n${beans.stderr()}`);
      if (browser)
        console.error(
          `page: ${browser.problems.join('\n')}\n${await browser.page
            .locator('body')
            .innerText()
            .catch(() => '?')}`,
        );
    }
  }
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
  // qwen3 reads pictures here (its /api/show lists vision), with a 32k window.
  const model = await scriptedOllama({ turns, models: [{ name: 'qwen3', capabilities: ['completion', 'tools', 'vision'], contextLength: 32768 }] });
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

if (chromiumMissing) it.skip(`the web view in Chromium: skipped, ${chromiumMissing}`, () => undefined);

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
    // The model, what the runs cost, and the context used of the model's window (32,768 tokens here).
    expect(await page.locator('.meta').textContent()).toMatch(/ollama · qwen3\$0\.00context [\d.]+k? \/ 32\.8k \(\d+%\)/);

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
  });

  it('asks before an edit: Allow, Always and Deny under the diff; Allow lands the change and shows the diff', async () => {
    const { beans, browser, repo } = await setUp(
      [
        {
          text: [
            '`greet` ignores its argument: it always says `hi`.\n\n',
            "| call | today | after |\n| --- | --- | --- |\n| `greet('Ada')` | hi | hello, Ada |\n\n",
            'I will change **one line**:',
          ],
          toolCalls: [{ name: 'edit_file', args: { path: 'src/greet.ts', old_string: "return 'hi';", new_string: "return 'hello, ' + name;" } }],
        },
        { text: 'I changed the greeting: it now **names the person**.' },
      ],
      { 'src/greet.ts': "export function greet(name: string) {\n  return 'hi';\n}\n" },
    );
    await openPage(beans, browser);
    const { page } = browser;
    await startFromPage(browser, 'Make the greeting name the person');
    const question = page.getByRole('group', { name: /Allow edit_file/ });
    await question.waitFor();
    expect(await question.locator('.diff .del').textContent()).toContain("return 'hi';");
    expect(await question.locator('.diff .add').textContent()).toContain("return 'hello, ' + name;");
    for (const name of ['Allow', 'Always', 'Deny']) expect(await question.getByRole('button', { name, exact: true }).isVisible()).toBe(true);
    // The session list says it waits for the person.
    await page.getByRole('navigation', { name: 'Sessions' }).getByText('waiting for you').waitFor();
    expect(readFileSync(path.join(repo.dir, 'src/greet.ts'), 'utf8')).toContain("return 'hi';");
    await screenshot(browser, 'web-view.png');
    await question.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('I changed the greeting').waitFor();
    expect(readFileSync(path.join(repo.dir, 'src/greet.ts'), 'utf8')).toBe("export function greet(name: string) {\n  return 'hello, ' + name;\n}\n");
    const tool = page.locator('.tool-ok');
    expect(await tool.locator('.tool-head').textContent()).toMatch(/edit_file src\/greet\.ts \+1 -1/);
    await page.getByText('Allowed: edit_file src/greet.ts').waitFor();
    expect(requestsElsewhere(browser, beans)).toEqual([]);
    expect(browser.problems).toEqual([]);
  });

  it('Deny sends the reason to the model; Stop ends a slow turn and its command within 2 s', async () => {
    const { beans, browser, model } = await setUp([
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'x' } }] },
      { toolCalls: [{ name: 'shell', args: { command: 'sleep 37.219' } }] },
      { text: 'never reached' },
    ]);
    await openPage(beans, browser);
    const { page } = browser;
    await startFromPage(browser, 'write notes, then wait');
    const question = page.getByRole('group', { name: /Allow write_file/ });
    await question.getByRole('textbox', { name: 'Why not (optional)' }).fill('not that file');
    await question.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied: write_file notes.txt').waitFor();
    // The next request tells the model why; it then runs a command that takes its time (Always: for the rest of the session).
    await page
      .getByRole('group', { name: /Allow shell/ })
      .getByRole('button', { name: 'Always' })
      .click();
    await expect.poll(() => processesLeft('sleep 37.219', 0).then((left) => left.length), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(JSON.stringify(model.requests.filter((request) => request.kind === 'chat')[1]!.body)).toContain('not that file');
    const started = Date.now();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.result').getByText('Stopped').waitFor({ timeout: 5_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await processesLeft('sleep 37.219', 1_000)).toEqual([]);
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached', timeout: 5_000 });
    expect(browser.problems).toEqual([]);
  });

  it('completes @ file names from the workspace and sends a pasted picture with the message', async () => {
    const { beans, browser, model } = await setUp([{ text: 'A red square, and the file says hello.' }], {
      'src/app.ts': 'export const hello = "from the app";\n',
      'src/other.ts': 'x\n',
      'README.md': '# r\n',
    });
    await openPage(beans, browser);
    const { page } = browser;
    await page.getByRole('button', { name: 'New session' }).click();
    await page.getByRole('button', { name: 'Start' }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.pressSequentially('what is in @src/a');
    const choices = page.getByRole('listbox', { name: 'Files' });
    await choices.waitFor();
    expect(await choices.getByRole('option').allTextContents()).toEqual(['src/app.ts']);
    await box.press('Enter');
    expect(await box.inputValue()).toBe('what is in @src/app.ts ');
    await box.evaluate((element, bytes) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(bytes), (char) => char.charCodeAt(0))], 'shot.png', { type: 'image/png' }));
      element.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, PNG_1x1.toString('base64'));
    await page.getByRole('list', { name: 'Pictures to send' }).getByRole('img', { name: 'shot.png' }).waitFor();
    await box.pressSequentially('and this picture?');
    await box.press('Enter');
    await page.getByText('A red square').waitFor();
    const chat = model.requests.find((request) => request.kind === 'chat')!.body as { messages: { role: string; content: string; images?: string[] }[] };
    const user = chat.messages.filter((message) => message.role === 'user');
    expect(JSON.stringify(user)).toContain('from the app');
    expect(user.flatMap((message) => message.images ?? [])).toHaveLength(1);
    expect(requestsElsewhere(browser, beans)).toEqual([]);
    expect(browser.problems).toEqual([]);
  });

  it('continues a stored session from the page: the earlier conversation shows, then the new turn', async () => {
    const { beans, browser, repo } = await setUp([{ text: 'The **first** answer.' }, { text: 'The second answer.' }]);
    const { id } = (await beans.api('POST', 'v1/sessions', { cwd: repo.dir, prompt: 'the first question' })).body;
    await beans.events(id, (events) => events.some((event) => event.data.type === 'result'));
    await beans.api('DELETE', `v1/sessions/${id}`);
    await openPage(beans, browser);
    const { page } = browser;
    await page.getByRole('button', { name: 'New session' }).click();
    const conversation = page.getByLabel('Conversation');
    await conversation.locator('option', { hasText: 'Continue: the first question' }).waitFor({ state: 'attached' });
    await conversation.selectOption({ label: (await conversation.locator('option', { hasText: 'the first question' }).textContent())! });
    await page.getByRole('button', { name: 'Start' }).click();
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await transcript.getByText('the first question').waitFor();
    expect(await transcript.locator('strong').first().textContent()).toBe('first');
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('and the second?');
    await box.press('Enter');
    await transcript.getByText('The second answer.').waitFor();
    expect(await transcript.locator('.message.user').allTextContents()).toEqual(['Youthe first question', 'Youand the second?']);
    expect(new URL(page.url()).hash).toBe(`#/session/${encodeURIComponent(id)}`);
    expect(browser.problems).toEqual([]);
  });

  it('reconnects by itself after a dropped connection and goes on from the last event, nothing lost or doubled', async () => {
    const words = ['one ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight.'];
    const { beans, browser } = await setUp([{ text: words, chunkDelayMs: 300 }]);
    // The page reaches the server through a proxy that can drop every connection, as a phone's network does.
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = createConnection(Number(new URL(beans.url).port), '127.0.0.1');
      client.pipe(upstream).pipe(client);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    open.push({ proxy });
    const proxied = { ...beans, url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/` };
    await openPage(proxied, browser);
    const { page } = browser;
    await startFromPage(browser, 'count to eight');
    await page.getByText('one two').waitFor();
    for (const socket of sockets) socket.destroy();
    await page.getByText('one two three four five six seven eight.').waitFor({ timeout: 15_000 });
    await page.getByText('Done in').waitFor();
    expect(await page.locator('.message.assistant').count()).toBe(1);
    expect(await page.locator('.message.user').count()).toBe(1);
    const streams = browser.requests.filter((request) => request.url.endsWith('/events'));
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(Number(streams[streams.length - 1]!.headers['last-event-id'])).toBeGreaterThan(0);
    expect(await page.getByRole('status').textContent()).toBe('live');
  });

  it('on a 390x844 phone: nothing scrolls sideways, the list and the session take turns; the page is sent with a strict CSP', async () => {
    const wide = `\`\`\`\n${'const x = 1; '.repeat(40)}\n\`\`\`\n\n| ${Array.from({ length: 12 }, (_, index) => `column ${index}`).join(' | ')} |\n|${' --- |'.repeat(12)}\n| ${'cell | '.repeat(12)}\n\n${'averyveryverylongwordwithoutanyspaces'.repeat(5)} and https://example.com/${'path/'.repeat(30)}`;
    const { beans, browser } = await setUp([{ text: wide }], {}, { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    const { page } = browser;
    const response = await page.goto(`${beans.url}#token=${beans.token}`);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("default-src 'self'");
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe');
    expect(headers['x-content-type-options']).toBe('nosniff');
    // An inline script is refused by the policy (what an injection would try).
    const blocked = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          document.addEventListener('securitypolicyviolation', (event) => resolve(event.violatedDirective), { once: true });
          const script = document.createElement('script');
          script.textContent = 'window.inlineRan = true';
          document.body.append(script);
        }),
    );
    expect(blocked).toMatch(/^script-src/);
    expect(await page.evaluate(() => (window as { inlineRan?: boolean }).inlineRan)).toBeUndefined();

    const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.getByRole('button', { name: 'New session' }).waitFor();
    expect(await sideways()).toBeLessThanOrEqual(0);
    await startFromPage(browser, 'show me something wide');
    await page.getByText('Done in').waitFor();
    expect(await sideways()).toBeLessThanOrEqual(0);
    // The session has the whole screen; the way back to the list is a link.
    expect(await page.getByRole('navigation', { name: 'Sessions' }).isVisible()).toBe(false);
    await screenshot(browser, 'web-view-phone.png');
    await page.getByRole('link', { name: 'All sessions' }).click();
    await page.getByRole('link', { name: /show me something wide/ }).waitFor();
    expect(await sideways()).toBeLessThanOrEqual(0);
    expect(requestsElsewhere(browser, beans)).toEqual([]);
    // The policy's own report of the test's script above is the one console error.
    expect(browser.problems.filter((problem) => !problem.includes('Content Security Policy'))).toEqual([]);
  });
});
