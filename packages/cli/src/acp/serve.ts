import { Writable } from 'node:stream';
import { ndJsonStream, type AgentConnection } from '@agentclientprotocol/sdk';
import { sdkWarningsOnce } from '@beans/core';
import type { CliOptions } from '../options.js';
import { createAcpAgent } from './agent.js';
import type { Initialized } from './initialize.js';

/** The SDK's connection on stdout and the rest of stdin, serving the ACP agent. */
export function connect(options: { cli: CliOptions; warn: (text: string) => void; input: ReadableStream<Uint8Array>; initialized?: Initialized }): {
  connection: AgentConnection;
  closeAll: () => Promise<void>;
} {
  // stderr reaches the editor's log: a provider SDK's warning once, not on every prompt.
  sdkWarningsOnce();
  const { app, closeAll } = createAcpAgent(options);
  const stream = ndJsonStream(Writable.toWeb(process.stdout), options.input);
  return { connection: app.connect(stream), closeAll };
}
