// A real browser for the web view's tests: Debian's Chromium (scripts/test-deps.sh installs the
// `chromium` package) driven by playwright-core, which never downloads a browser of its own. Headless,
// with the flags that keep Chromium off the network (no background requests, updates or sync) and a
// fresh profile each time (playwright's own); --no-sandbox only as root, where Chromium's sandbox cannot start.
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';

const CHROMIUM = process.env.BEANS_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumMissing = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing: install Debian's chromium package (scripts/test-deps.sh does)`;

const FLAGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-domain-reliability',
  '--disable-breakpad',
  '--metrics-recording-only',
  '--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication',
];

interface RecordedBrowserRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
}

export interface TestBrowser {
  page: Page;
  context: BrowserContext;
  /** Every request the page made, in order (the page's own and every asset). */
  requests: RecordedBrowserRequest[];
  /** Errors the page threw and console errors, for the assertion messages. */
  problems: string[];
  close(): Promise<void>;
}

export async function openBrowser(options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}): Promise<TestBrowser> {
  // playwright-core starts Chromium on a new empty profile of its own.
  const args = [...FLAGS];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args, timeout: 30_000 });
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 }, colorScheme: options.colorScheme ?? 'light' });
  const page = await context.newPage();
  // A step that does not happen fails on its own line, well within the test's 30 s.
  page.setDefaultTimeout(12_000);
  const requests: RecordedBrowserRequest[] = [];
  const problems: string[] = [];
  context.on('request', (request: Request) => {
    const entry: RecordedBrowserRequest = { url: request.url(), method: request.method(), headers: request.headers() };
    requests.push(entry);
    // Every header as sent, Authorization included (headers() leaves some out).
    void request.allHeaders().then(
      (headers) => (entry.headers = headers),
      () => undefined,
    );
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return {
    page,
    context,
    requests,
    problems,
    async close() {
      await browser.close().catch(() => undefined);
    },
  };
}

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../docs/images');

/**
 * A screenshot of the page for the README: written to docs/images with BEANS_UPDATE_SCREENSHOTS=1
 * (then committed), else to the temporary folder so a test run leaves the tree as it was.
 */
export async function screenshot(browser: TestBrowser, name: string): Promise<void> {
  const folder = process.env.BEANS_UPDATE_SCREENSHOTS === '1' ? SCREENSHOTS : os.tmpdir();
  mkdirSync(folder, { recursive: true });
  await browser.page.screenshot({ path: path.join(folder, name) });
  if (!existsSync(path.join(folder, name))) throw new Error(`The screenshot ${name} was not written.`);
}
