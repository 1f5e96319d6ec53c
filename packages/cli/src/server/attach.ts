import { UsageError } from '@beans/core';
import { ServerClient, findServer } from './client.js';

/**
 * `beans attach [id]`: the chat on a served session in this terminal. The server draws it (the same
 * chat: every key and slash command) and this process only carries keys there and bytes back;
 * leaving the chat leaves the session running.
 */
export async function runAttach(id: string | undefined): Promise<number> {
  const server = findServer(process.env);
  if (!server) throw new UsageError('No Beans server is running here: start one with `beans serve` (or set BEANS_SERVER_URL and BEANS_SERVER_TOKEN).');
  const { stdin, stdout } = process;
  if (!stdin.isTTY || !stdout.isTTY) throw new UsageError('beans attach needs a terminal (its input and output must not be redirected).');
  const client = new ServerClient(server);
  const session = await client.resolve(id);
  const base = `v1/sessions/${session.id}/terminals`;
  const size = () => ({ columns: Math.max(20, stdout.columns || 80), rows: Math.max(5, stdout.rows || 24) });
  const { terminal_id: terminalId } = await client.call<{ terminal_id: string }>('POST', base, { ...size(), noColor: process.env.NO_COLOR !== undefined });
  const terminal = `${base}/${terminalId}`;

  // Keys go in order, batched while one request is on its way.
  let pending = '';
  let sending: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    while (pending) {
      const data = pending;
      pending = '';
      await client.call('POST', `${terminal}/input`, { data }).catch(() => undefined);
    }
    sending = undefined;
  };
  const onKeys = (chunk: Buffer | string) => {
    pending += chunk.toString();
    sending ??= flush();
  };
  const onResize = () => void client.call('POST', `${terminal}/resize`, size()).catch(() => undefined);
  const leave = () => void client.call('DELETE', terminal).catch(() => undefined);

  stdin.setRawMode(true);
  stdin.resume();
  stdin.on('data', onKeys);
  stdout.on('resize', onResize);
  process.on('SIGTERM', leave);
  process.on('SIGHUP', leave);
  let code = 0;
  try {
    await client.stream(`${terminal}/output`, (message) => {
      const event = message as { type: 'output'; data: string } | { type: 'exit'; code: number };
      if (event.type === 'output') stdout.write(event.data);
      else code = event.code;
      return event.type === 'exit';
    });
  } finally {
    stdin.off('data', onKeys);
    stdout.off('resize', onResize);
    process.off('SIGTERM', leave);
    process.off('SIGHUP', leave);
    stdin.setRawMode(false);
    stdin.pause();
  }
  stdout.write(`\nLeft session ${session.id}; it goes on in the server. beans attach ${session.id} comes back to it.\n`);
  return code;
}
