import { UsageError } from '@beans/core';
import { ServerClient, findServer, type ServedSessionInfo } from './client.js';

/** How often `sessions wait` asks; a session's end shows within this. */
const WAIT_POLL_MS = 200;

function client(): ServerClient {
  const server = findServer(process.env);
  if (!server) throw new UsageError('No Beans server is running here: start one with `beans serve` (or set BEANS_SERVER_URL and BEANS_SERVER_TOKEN).');
  return new ServerClient(server);
}

/** `beans sessions show <id>` */
export async function sessionsShow(id: string, local: { json?: boolean }): Promise<number> {
  const session = await client().resolve(id);
  if (local.json) process.stdout.write(`${JSON.stringify(session)}\n`);
  else process.stdout.write(describe(session));
  return 0;
}

/** `beans sessions wait <id>`: returns once no turn runs or waits, with the exit code a one-shot run of its last turn would have had. */
export async function sessionsWait(id: string): Promise<number> {
  const server = client();
  const { id: full } = await server.resolve(id);
  for (;;) {
    const session = await server.call<ServedSessionInfo>('GET', `v1/sessions/${full}`);
    if (session.state !== 'running' && session.state !== 'waiting') return session.exitCode ?? 0;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

function describe(session: ServedSessionInfo): string {
  const rows: [string, string][] = [
    ['session', session.id],
    ['state', session.state],
    ['folder', session.cwd],
    ['title', session.title],
    ['updated', session.updatedAt],
    ...(session.exitCode !== undefined ? ([['exit code', String(session.exitCode)]] as [string, string][]) : []),
  ];
  return `${rows.map(([name, value]) => `${name.padEnd(10)} ${value}`).join('\n')}\n`;
}
