import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_BYTES = 20 * 1024 * 1024;

/** One way to read a PNG from the clipboard: a program and its arguments. */
interface Reader {
  command: string;
  args: string[];
}

/**
 * Where the clipboard is read from, as Claude Code reads it: macOS's pasteboard (through osascript),
 * Wayland's wl-paste, X11's xclip. Only the ones this session can use.
 */
function readers(env: NodeJS.ProcessEnv): Reader[] {
  if (process.platform === 'darwin') return [{ command: 'osascript', args: ['-e', 'set png to (the clipboard as «class PNGf»)', '-e', 'return png'] }];
  const list: Reader[] = [];
  if (env.WAYLAND_DISPLAY) list.push({ command: 'wl-paste', args: ['--no-newline', '--type', 'image/png'] });
  if (env.DISPLAY) list.push({ command: 'xclip', args: ['-selection', 'clipboard', '-target', 'image/png', '-out'] });
  return list;
}

function run(reader: Reader, env: NodeJS.ProcessEnv): Promise<Buffer | { missing: boolean }> {
  return new Promise((resolve) => {
    execFile(reader.command, reader.args, { encoding: 'buffer', maxBuffer: MAX_BYTES, timeout: 5_000, env }, (error, stdout) => {
      if (error) resolve({ missing: (error as NodeJS.ErrnoException).code === 'ENOENT' });
      else resolve(stdout);
    });
  });
}

/** osascript prints «data PNGf89504E47…»: the hex of the bytes. */
function fromOsascript(output: Buffer): Buffer {
  const hex = /«data PNGf([0-9A-Fa-f]+)»/.exec(output.toString('latin1'))?.[1];
  return hex ? Buffer.from(hex, 'hex') : output;
}

/**
 * Ctrl+V: the picture on the clipboard saved as a PNG file in Beans' own temporary folder, whose path
 * the prompt then names (and attaches, as a pasted path does); or why there is none.
 */
export async function pasteClipboardImage(
  env: NodeJS.ProcessEnv = process.env,
  folder = path.join(tmpdir(), 'beans-clipboard'),
): Promise<{ path: string } | { error: string }> {
  const candidates = readers(env);
  if (candidates.length === 0)
    return { error: "No clipboard to read a picture from here (no DISPLAY or WAYLAND_DISPLAY); paste or drop the picture file's path instead." };
  let missing = 0;
  for (const reader of candidates) {
    const output = await run(reader, env);
    if (!Buffer.isBuffer(output)) {
      if (output.missing) missing += 1;
      continue;
    }
    const bytes = reader.command === 'osascript' ? fromOsascript(output) : output;
    if (!bytes.subarray(0, 8).equals(PNG)) continue;
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, `clipboard-${Date.now()}.png`);
    await writeFile(file, bytes, { mode: 0o600 });
    return { path: file };
  }
  if (missing === candidates.length)
    return {
      error: `Reading a picture from the clipboard needs ${candidates.map((reader) => reader.command).join(' or ')}; install it, or paste the picture file's path instead.`,
    };
  return { error: 'There is no picture on the clipboard.' };
}
