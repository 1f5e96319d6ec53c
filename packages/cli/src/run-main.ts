import { UsageError } from '@beans/core';
import type { CliOptions } from './options.js';
import { reportError } from './report-error.js';

const started = Date.now();

/** The default command: chat on a terminal, one-shot with -p or piped stdin. */
export async function runMain(options: CliOptions, { forceChat }: { forceChat: boolean }): Promise<number> {
  try {
    if (options.inputFormat === 'stream-json') {
      if (options.outputFormat !== 'stream-json') throw new UsageError('--input-format stream-json needs --output-format stream-json.');
      const { runSdkSubprocess } = await import('./sdk-subprocess.js');
      return await runSdkSubprocess(options);
    }
    if (options.prompt !== undefined || (!forceChat && !process.stdin.isTTY)) {
      const piped = process.stdin.isTTY ? '' : await readStdin();
      const prompt = joinPrompt(options.prompt, piped);
      if (!prompt.trim()) throw new UsageError('Nothing to do: give a prompt with -p "..." or pipe one on stdin.');
      const { runOneShot } = await import('./one-shot.js');
      return await runOneShot(options, prompt, started);
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UsageError('Chat needs a terminal. For scripts use beans -p "...".');
    const { runInteractive } = await import('./interactive.js');
    return await runInteractive(options);
  } catch (error) {
    return reportError(error, options.debug === true);
  }
}

/** Piped input becomes context placed before the prompt. */
export function joinPrompt(prompt: string | undefined, piped: string): string {
  const context = piped.trim();
  if (!context) return prompt ?? '';
  if (!prompt) return context;
  return `<stdin>\n${context}\n</stdin>\n\n${prompt}`;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
