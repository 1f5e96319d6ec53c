import { DEFAULT_LOCAL_MODEL, formatModelBytes, pullModel, type PullProgress } from '@beans/core';
import { onStopSignals } from '../signals.js';

/**
 * `beans models pull [<uri>] [--sha256 S] [--force]`: a GGUF model into the user's models folder,
 * with a progress line on stderr (size, speed, time left), resuming a cut download.
 */
export async function modelsPull(uri: string | undefined, local: { sha256?: string; force?: boolean }): Promise<number> {
  const controller = new AbortController();
  const stopListening = onStopSignals(() => controller.abort());
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  const draw = (progress: PullProgress, final = false) => {
    const now = Date.now();
    // A terminal gets one line redrawn in place; a pipe or a log a line every 5 s (and the last).
    if (!tty && !final && now - lastLine < 5000) return;
    lastLine = now;
    const line = progressLine(progress);
    process.stderr.write(tty ? `\r\x1b[2K${line}${final ? '\n' : ''}` : `${line}\n`);
  };
  try {
    const result = await pullModel({
      ...(uri ? { uri } : {}),
      ...(local.sha256 ? { sha256: local.sha256 } : {}),
      ...(local.force ? { force: true } : {}),
      signal: controller.signal,
      onStart: ({ url, resumeFrom, total }) =>
        process.stderr.write(
          `Downloading ${url}${total ? ` (${formatModelBytes(total)})` : ''}${resumeFrom > 0 ? `, resuming at ${formatModelBytes(resumeFrom)}` : ''}\n`,
        ),
      onProgress: (progress) => draw(progress),
    });
    if (!result.present) draw({ received: result.bytes, total: result.bytes, bytesPerSecond: 0 }, true);
    const check =
      result.verified === 'given' ? 'checksum verified' : result.verified === 'server' ? "checksum verified against the server's" : 'no checksum to verify';
    process.stdout.write(
      result.present
        ? `Already downloaded: ${result.file}\n`
        : `Saved ${result.file} (${formatModelBytes(result.bytes)}, ${check}). Use it with: beans --provider local -m ${result.file}\n`,
    );
    return 0;
  } finally {
    stopListening();
  }
}

function progressLine({ received, total, bytesPerSecond }: PullProgress): string {
  const speed = bytesPerSecond > 0 ? `  ${formatModelBytes(bytesPerSecond)}/s` : '';
  if (!total) return `${formatModelBytes(received)}${speed}`;
  const fraction = Math.min(1, received / total);
  const width = 24;
  const bar = '#'.repeat(Math.round(fraction * width)).padEnd(width, '.');
  const left = bytesPerSecond > 0 && received < total ? `  ${clock((total - received) / bytesPerSecond)} left` : '';
  return `[${bar}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${formatModelBytes(received)} / ${formatModelBytes(total)}${speed}${left}`;
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${r}` : `${m}:${r}`;
}

/**
 * Chat with nothing to answer: the sentence, then "Download ... now? [y/N]" answered by one key. True
 * when the default model was pulled (the session can start with it).
 */
export async function offerDefaultModel(why: string): Promise<boolean> {
  process.stderr.write(`${why}\nDownload the default local model now (Qwen3 1.7B, about 2 GB, ${DEFAULT_LOCAL_MODEL})? [y/N] `);
  const key = await oneKey();
  process.stderr.write(`${/^y$/i.test(key) ? 'y' : 'n'}\n`);
  if (!/^y$/i.test(key)) return false;
  return (await modelsPull(undefined, {})) === 0;
}

function oneKey(): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve) => {
    stdin.setRawMode(true);
    stdin.resume();
    stdin.once('data', (data: Buffer) => {
      stdin.setRawMode(false);
      stdin.pause();
      resolve(data.toString('utf8'));
    });
  });
}
