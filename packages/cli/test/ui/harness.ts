import { EventEmitter } from 'node:events';
import type { ChatAgent } from '../../src/chat-agent.js';
import { runChat } from '../../src/ui/run-chat.js';
import { createFakeHost, type FakeHostOptions } from './fake-host.js';

export const KEY = {
  enter: '\r',
  escape: '\x1b',
  up: '\x1b[A',
  down: '\x1b[B',
  left: '\x1b[D',
  right: '\x1b[C',
  tab: '\t',
  backspace: '\x7f',
  altEnter: '\x1b\r',
  shiftEnter: '\x1b[13;2u',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlA: '\x01',
  ctrlB: '\x02',
  ctrlE: '\x05',
  ctrlU: '\x15',
  pasteStart: '\x1b[200~',
  pasteEnd: '\x1b[201~',
};

/** A terminal stand-in with a size; like ink-testing-library's, but resizable. */
class FakeStdout extends EventEmitter {
  frames: string[] = [];
  isTTY = false;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string) => {
    this.frames.push(frame);
    return true;
  };
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write(data: string) {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  }
  read = () => {
    const data = this.data;
    this.data = null;
    return data;
  };
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

const ANSI = /\x1b\[[0-9;]*m/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

const open = new Set<{ close(): Promise<unknown> }>();

/** Ends every chat a test left running (Ctrl+C twice), so Ink instances do not pile up. */
/** The folders of fake hosts started with startFakeChat, removed by closeChats. */
const fakeHostCleanups: (() => void)[] = [];

export async function closeChats(): Promise<void> {
  await Promise.all([...open].map((chat) => chat.close()));
  for (const cleanup of fakeHostCleanups.splice(0)) cleanup();
}

/** A chat on a fake host (createFakeHost); closeChats closes it and removes the host's folder. */
export function startFakeChat(options: FakeHostOptions) {
  const fake = createFakeHost(options);
  fakeHostCleanups.push(fake.cleanup);
  return { fake, chat: startChat(fake.host) };
}

/** Runs the real `runChat` against fake terminal streams and lets a test type and read frames. */
export function startChat(host: ChatAgent, options: { columns?: number; rows?: number; noColor?: boolean } = {}) {
  const stdout = new FakeStdout(options.columns ?? 100, options.rows ?? 30);
  const stderr = new FakeStdout(options.columns ?? 100, options.rows ?? 30);
  const stdin = new FakeStdin();
  const done = runChat(host, {
    noColor: options.noColor ?? false,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    debug: true,
  });
  const rawFrame = () => stdout.frames[stdout.frames.length - 1] ?? '';
  // Ink mounts after an asynchronous import; keys sent before that would be lost.
  const mounted = (async () => {
    while (stdout.frames.length === 0) await tick(2);
  })();
  const frame = () => stripAnsi(rawFrame());

  const chat = {
    stdout,
    done,
    rawFrame,
    frame,
    /** Everything written so far, frames joined. */
    output: () => stripAnsi(stdout.frames.join('')),
    /** Rows of the current frame, trailing spaces trimmed. */
    rows: () =>
      frame()
        .split('\n')
        .map((row) => row.trimEnd()),
    async type(text: string) {
      await mounted;
      stdin.write(text);
      await tick();
    },
    /** Types text the way a person does: one key at a time. */
    async typeKeys(text: string) {
      await mounted;
      for (const char of text) {
        stdin.write(char);
        await tick();
      }
    },
    async press(...keys: string[]) {
      await mounted;
      for (const key of keys) {
        stdin.write(key);
        // A lone ESC waits one macrotask in Ink's parser before it counts as the Escape key.
        await tick(key === KEY.escape ? 5 : 0);
      }
    },
    async submit(text: string) {
      await chat.type(text);
      await chat.press(KEY.enter);
    },
    /** Answers an open permission prompt as a person does: once it can be read, choose, then Enter. */
    async answer(choice: 'y' | 'a' | 'n') {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await chat.type(choice);
    },
    async waitFor(predicate: (frame: string) => boolean, what = 'the expected frame', timeoutMs = 4000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = frame();
        if (predicate(current)) return current;
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. Last frame:\n${current}`);
        await tick(10);
      }
    },
    waitForText(text: string, timeoutMs?: number) {
      return chat.waitFor((current) => current.includes(text), JSON.stringify(text), timeoutMs);
    },
    async close() {
      open.delete(chat);
      await mounted;
      stdin.write(KEY.ctrlC);
      stdin.write(KEY.ctrlC);
      return done;
    },
    resize(columns: number, rows: number) {
      stdout.columns = columns;
      stdout.rows = rows;
      stdout.emit('resize');
    },
  };
  open.add(chat);
  void done.finally(() => open.delete(chat));
  return chat;
}

export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
