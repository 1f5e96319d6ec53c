import { initializeResult, type Initialized } from './initialize.js';

export interface EarlyStart {
  /** Set when the first message was `initialize` and it has been answered. */
  initialized?: Initialized;
  /** stdin from the first byte not consumed here, for the SDK's connection. */
  input: ReadableStream<Uint8Array>;
}

/**
 * Editors wait for the `initialize` answer before anything else, and loading the protocol library
 * (its schemas) is most of `beans acp`'s start-up. So the first line is read here: when it is an
 * `initialize` request it is answered at once, from the same `initializeResult` the SDK handler
 * uses, while the library loads; anything else (and everything after) goes to the SDK untouched.
 */
export function earlyInitialize(stdin: NodeJS.ReadableStream, write: (line: string) => void): Promise<EarlyStart> {
  return new Promise((resolve) => {
    const pending: Buffer[] = [];
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let ended = false;
    let decided = false;
    const input = new ReadableStream<Uint8Array>({
      start(control) {
        controller = control;
      },
    });
    const forward = (chunk: Buffer) => controller!.enqueue(new Uint8Array(chunk));
    const decide = (initialized: Initialized | undefined, rest: Buffer) => {
      decided = true;
      if (rest.length > 0) forward(rest);
      if (ended) controller!.close();
      resolve({ ...(initialized ? { initialized } : {}), input });
    };
    stdin.on('data', (chunk: Buffer) => {
      if (decided) return forward(chunk);
      pending.push(chunk);
      const buffered = Buffer.concat(pending);
      const newline = buffered.indexOf(0x0a);
      if (newline === -1) return;
      const answered = answer(buffered.subarray(0, newline).toString('utf8'), write);
      decide(answered, answered ? buffered.subarray(newline + 1) : buffered);
    });
    stdin.on('end', () => {
      ended = true;
      if (decided) controller!.close();
      else decide(undefined, Buffer.concat(pending));
    });
    stdin.on('error', (error) => (decided ? controller!.error(error) : decide(undefined, Buffer.concat(pending))));
  });
}

/** Answers the line when it is a well-formed `initialize` request; undefined leaves it to the SDK. */
function answer(line: string, write: (line: string) => void): Initialized | undefined {
  let message: {
    jsonrpc?: unknown;
    id?: unknown;
    method?: unknown;
    params?: { protocolVersion?: unknown; clientCapabilities?: Initialized['clientCapabilities'] };
  };
  try {
    message = JSON.parse(line) as typeof message;
  } catch {
    return undefined;
  }
  const { id } = message ?? {};
  if (message?.jsonrpc !== '2.0' || message.method !== 'initialize' || (typeof id !== 'number' && typeof id !== 'string')) return undefined;
  if (typeof message.params?.protocolVersion !== 'number') return undefined;
  write(`${JSON.stringify({ jsonrpc: '2.0', id, result: initializeResult() })}\n`);
  return { clientCapabilities: message.params.clientCapabilities ?? {} };
}
