import { initializeResult, type Initialized } from './initialize.js';
import { LineGuard } from './line-guard.js';

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
 * uses, while the library loads; anything else (and everything after) goes to the SDK as it came.
 * Every line passes through a LineGuard first: one longer than the SDK takes is dropped as it
 * arrives and answered with an error here (the SDK would end the connection, and Beans with it).
 */
export function earlyInitialize(
  stdin: NodeJS.ReadableStream,
  write: (line: string) => void,
  warn: (text: string) => void = () => undefined,
): Promise<EarlyStart> {
  return new Promise((resolve) => {
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let decided = false;
    let ended = false;
    const input = new ReadableStream<Uint8Array>({
      start(control) {
        controller = control;
      },
    });
    const forward = (bytes: Uint8Array) => controller!.enqueue(bytes);
    const decide = (initialized: Initialized | undefined) => {
      decided = true;
      resolve({ ...(initialized ? { initialized } : {}), input });
    };
    const guard = new LineGuard({
      line: (line) => {
        if (decided) return forward(line);
        const answered = answer(
          Buffer.from(line)
            .toString('utf8')
            .replace(/\r?\n$/, ''),
          write,
        );
        if (!answered) forward(line);
        decide(answered);
      },
      tooLong: (refusal) => {
        write(`${JSON.stringify({ jsonrpc: '2.0', id: refusal.id, error: { code: -32600, message: refusal.message } })}\n`);
        warn(refusal.message);
      },
    });
    stdin.on('data', (chunk: Buffer) => guard.push(chunk));
    stdin.on('end', () => {
      if (ended) return;
      ended = true;
      guard.end();
      if (!decided) decide(undefined);
      controller!.close();
    });
    stdin.on('error', (error) => {
      if (!decided) decide(undefined);
      controller!.error(error);
    });
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
