import { fstatSync, readFileSync, statSync } from 'node:fs';
import { isatty } from 'node:tty';
import { CONFIG_DEFAULTS, UsageError, loadConfig, resolveWorkspace, startupFailureResult } from '@beans/core';
import { configFlags, type CliOptions } from './options.js';
import { reportError } from './report-error.js';
import { runOneShot } from './one-shot.js';

const started = Date.now();

/** The default command: chat on a terminal, one-shot with -p or piped stdin. */
export async function runMain(options: CliOptions, { forceChat, initialPrompt }: { forceChat: boolean; initialPrompt?: string }): Promise<number> {
  try {
    if (options.inputFormat === 'stream-json') {
      if (options.outputFormat !== 'stream-json') throw new UsageError('--input-format stream-json needs --output-format stream-json.');
      const { runSdkSubprocess } = await import('./sdk-subprocess.js');
      return await runSdkSubprocess(options);
    }
    // Piped stdin without -p is a one-shot run on it, `beans chat` included (the contract). Asked of
    // the file descriptor: process.stdin would set up a stream (~2 ms) that a `-p` run may never read.
    const stdinIsTerminal = isatty(0);
    if (options.prompt !== undefined && initialPrompt !== undefined)
      throw new UsageError(`Two prompts: -p "${options.prompt}" and "${initialPrompt}". Give one (beans -p "..." for one-shot, beans "..." for the chat).`);
    if (options.prompt !== undefined || !stdinIsTerminal) {
      if (options.resume === true)
        throw new UsageError('-r/--resume needs a session id here (beans sessions list shows them); in the chat, -r alone opens a list to pick from.');
      const piped = stdinIsTerminal ? '' : await readStdin(options.prompt !== undefined, () => stdinLimit(options));
      const prompt = joinPrompt(options.prompt ?? initialPrompt, piped);
      if (!prompt.trim()) throw new UsageError('Nothing to do: give a prompt with -p "..." or pipe one on stdin.');
      if (options.background) return await (await (await import('./server/choose-host.js')).sessionHost(options)).queue(options, prompt);
      return await runOneShot(options, prompt, started);
    }
    if (!process.stdout.isTTY) throw new UsageError(`${forceChat ? 'Chat' : 'Beans'} needs a terminal. For scripts use beans -p "...".`);
    const { runInteractive } = await import('./interactive.js');
    return await runInteractive(options, initialPrompt);
  } catch (error) {
    // Scripts reading JSON get a result object even when the run never started.
    if (options.outputFormat !== 'text' && options.inputFormat !== 'stream-json') {
      process.stdout.write(`${JSON.stringify(startupFailureResult(error instanceof Error ? error.message : String(error)))}\n`);
    }
    return reportError(error, options.debug === true);
  }
}

/** Piped input becomes context placed before the prompt. */
function joinPrompt(prompt: string | undefined, piped: string): string {
  const context = piped.trim();
  if (!context) return prompt ?? '';
  if (!prompt) return context;
  return `<stdin>\n${context}\n</stdin>\n\n${prompt}`;
}

/** How long a silent stdin may keep a `-p` run waiting before Beans says what it is waiting for. */
const STDIN_NOTICE_MS = 3_000;

const DEFAULT_STDIN_LIMIT = CONFIG_DEFAULTS['input.maxStdinBytes'] as number;

/**
 * The setting `input.maxStdinBytes`, loaded while stdin is read (it is not on the way: the read
 * only waits for it once more than the default has arrived, or at the end). /dev/null (cron, CI, a
 * closed stdin) never asks for it: loading the settings for nothing cost ~1-2 ms of CPU there. A
 * settings file that fails to load is reported by the run itself; here the default applies.
 */
function stdinLimit(options: CliOptions): Promise<number> {
  return (async () => {
    const workspace = resolveWorkspace();
    const loaded = await loadConfig({
      workspaceRoot: workspace.root,
      cwd: workspace.cwd,
      env: process.env,
      flags: configFlags(options),
      settingSources: options.settingSources,
    });
    return loaded.values.input?.maxStdinBytes ?? DEFAULT_STDIN_LIMIT;
  })().catch(() => DEFAULT_STDIN_LIMIT);
}

const formatBytes = (bytes: number) => (bytes < 1024 * 1024 ? `${bytes.toLocaleString('en-US')} bytes` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`);

/** Piped input larger than the limit: refused (exit 2) before anything is sent, instead of a huge request. */
function tooLarge(size: number | undefined, limit: number): UsageError {
  const what = size === undefined ? `more than ${formatBytes(limit)}` : formatBytes(size);
  return new UsageError(
    `The input piped on stdin is ${what}, over the limit of ${formatBytes(limit)} (setting input.maxStdinBytes); nothing was sent. Pipe a smaller part (head, grep, a diff), or raise the limit in your settings.`,
  );
}

async function readStdin(withPrompt: boolean, settingLimit: () => Promise<number>): Promise<string> {
  // A file or /dev/null is read as it is: process.stdin costs ~5 ms of stream set-up, and scripts
  // (cron, CI, `< /dev/null`) start that way. Pipes and sockets go through the stream below.
  const input = fstatSync(0);
  if (input.isCharacterDevice() && input.rdev === statSync('/dev/null').rdev) return '';
  const limit = settingLimit();
  if (input.isFile()) {
    if (input.size > DEFAULT_STDIN_LIMIT && input.size > (await limit)) throw tooLarge(input.size, await limit);
    const text = readFileSync(0, 'utf8');
    if (Buffer.byteLength(text) > (await limit)) throw tooLarge(Buffer.byteLength(text), await limit);
    return text;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  const notice = setTimeout(() => {
    if (chunks.length > 0) return;
    const skip = withPrompt ? ' If there is nothing to pipe in, run it with < /dev/null.' : '';
    process.stderr.write(`beans: waiting for input on stdin (it is not a terminal).${skip}\n`);
  }, STDIN_NOTICE_MS);
  try {
    for await (const chunk of process.stdin) {
      chunks.push(chunk as Buffer);
      bytes += (chunk as Buffer).length;
      // Stops reading at the limit: an endless pipe (`yes |`) ends here too, not in an out-of-memory.
      if (bytes > DEFAULT_STDIN_LIMIT && bytes > (await limit)) throw tooLarge(undefined, await limit);
    }
  } finally {
    clearTimeout(notice);
  }
  if (bytes > (await limit)) throw tooLarge(bytes, await limit);
  return Buffer.concat(chunks).toString('utf8');
}
