// Takes the README's screenshot of the chat (docs/images/chat.png) from a real terminal: the built
// bin/beans in a tmux pane, talking to the scripted Anthropic server of the tests; the pane is
// captured with its colours (capture-pane -e), drawn as HTML (scripts/docs/ansi-html.mjs) and
// photographed by Debian's Chromium (the tests' TmuxSession and openBrowser). Needs tmux and /usr/bin/chromium.
//   pnpm run --silent build && node scripts/chat-screenshot.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBrowser } from '../test/support/browser.ts';
import { startScriptedAnthropic } from '../test/support/scripted-anthropic.ts';
import { TmuxSession } from '../test/tmux/tmux.ts';
import { ansiToHtml } from './docs/ansi-html.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'docs/images/chat.png');
const COLUMNS = 100;
const ROWS = 44;

const CLI = `import { parseArgs } from 'node:util';
import { build } from './build.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'dist' },
  },
});

await build({ out: values.out });
`;

// A read, two edits (the first approved with "always"), an answer with a table, and a command that waits for its question.
const TURNS = [
  { text: "I'll read the CLI first.", toolCalls: [{ name: 'read_file', args: { path: 'src/cli.js' } }] },
  {
    toolCalls: [
      {
        name: 'edit_file',
        args: {
          path: 'src/cli.js',
          old_string: "    out: { type: 'string', default: 'dist' },\n",
          new_string: "    out: { type: 'string', default: 'dist' },\n    verbose: { type: 'boolean', short: 'v', default: false },\n",
        },
      },
    ],
  },
  {
    toolCalls: [
      {
        name: 'edit_file',
        args: {
          path: 'src/cli.js',
          old_string: 'await build({ out: values.out });',
          new_string: 'await build({ out: values.out, log: values.verbose ? console.error : () => {} });',
        },
      },
    ],
  },
  {
    text: 'Added the flag to `src/cli.js`:\n\n| option | effect |\n| --- | --- |\n| `--verbose`, `-v` | logs each build step to stderr |\n| `--out <dir>` | unchanged, default `dist` |\n\nNow the tests:',
    toolCalls: [{ name: 'shell', args: { command: 'npm test' } }],
  },
  { text: 'All tests pass.' },
];

const root = mkdtempSync(path.join(os.tmpdir(), 'demo-'));
const home = path.join(root, 'home');
const repo = path.join(root, 'site');
mkdirSync(path.join(repo, 'src'), { recursive: true });
mkdirSync(home);
writeFileSync(path.join(repo, 'src/cli.js'), CLI);
writeFileSync(path.join(repo, 'package.json'), '{ "name": "site", "type": "module", "scripts": { "test": "node --test" } }\n');
const git = (...args) => execFileSync('git', ['-c', 'user.email=dev@example.com', '-c', 'user.name=dev', ...args], { cwd: repo });
git('init', '-q', '-b', 'main');
git('add', '-A');
git('commit', '-qm', 'init');

const server = await startScriptedAnthropic({ turns: TURNS });
const session = TmuxSession.start({
  workspace: { dir: repo, home },
  env: { ANTHROPIC_API_KEY: 'sk-ant-example', ANTHROPIC_BASE_URL: server.url },
  args: [],
  columns: COLUMNS,
  rows: ROWS,
});

let browser;
try {
  await session.waitForText('Ask anything', 30_000);
  await session.submit('add a --verbose flag to the CLI, then run the tests');
  await session.waitForText('Allow edit_file src/cli.js?', 30_000);
  // A key answers once the question has been on screen for a moment (the typing gate).
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  session.type('a');
  await session.waitForText('Allow shell npm test?', 30_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const capture = session.styledVisible();
  browser = await openBrowser();
  await browser.page.setContent(ansiToHtml(capture, { columns: COLUMNS, title: 'beans — site' }));
  await browser.page.locator('.window').screenshot({ path: OUT });
  console.log(`wrote ${path.relative(ROOT, OUT)}`);
} finally {
  await browser?.close();
  session.kill();
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
