import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serve } from '@hono/node-server';
import os from 'node:os';
import { UsageError, createAgentSession, loadRuntimeBase, localRoutineStore, parsePermissionMode, sdkWarningsOnce, startRoutineScheduler } from '@beans/core';
import { cliSessionOptions } from '../bootstrap.js';
import { configFlags, type CliOptions } from '../options.js';
import { createServerApp } from './app.js';
import { removeServerFile, writeServerFile } from './server-file.js';
import { SessionTable, type SessionRequest } from './session-table.js';
import { loadWebAssets } from './web-assets.js';
import { webRouteSources } from './web-sources.js';
import { registerWebRoutes } from './web-routes.js';

export interface ServeFlags {
  host?: string;
  port?: string;
  allowHost?: string[];
}

/** How long SIGINT/SIGTERM waits for sessions to stop before the server exits anyway. */
const SHUTDOWN_MS = 2_500;

/**
 * `beans serve`: hosts sessions over the HTTP API v1 until SIGINT/SIGTERM. Prints one line, the URL
 * with its token; the token is also in a file only the user can read (for `beans attach`).
 */
export async function runServe(options: CliOptions, flags: ServeFlags): Promise<number> {
  sdkWarningsOnce();
  const host = flags.host ?? '127.0.0.1';
  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--port ${flags.port} is not a port number (0-65535; 0 picks a free one).`);
  // Before anything is printed: a client may signal the moment it reads the URL, and a signal with no
  // handler yet would end the process at once. The handlers stay until exit: a second signal ends at
  // once, and with none left, the process-tree sweep (installed when a command was spawned) would
  // re-raise the first and cut the shutdown short.
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) process.exit(0);
      stopping = true;
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const token = randomBytes(24).toString('base64url');
  const sessions = new SessionTable((request) => openSession(options, request));
  const runners = await runnerSessions(options);
  const app = createServerApp({
    token,
    host,
    allowHosts: flags.allowHost,
    sessions,
    ...(runners ? { runners } : {}),
    web: loadWebAssets(),
    routes: (routes) =>
      registerWebRoutes(routes, {
        sessions,
        cwd: process.cwd(),
        ...webRouteSources(options),
        ...(runners ? { onRunner: async (id: string) => (await runners.get(id)) !== undefined } : {}),
      }),
  });

  const server = serve({ fetch: app.fetch, hostname: host, port });
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('listening', () => resolve(server.address() as AddressInfo));
    server.once('error', reject);
  }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`Cannot listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}.`);
  });
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shown}:${address.port}/`;
  writeServerFile(process.env, { url, token, pid: process.pid });
  process.stdout.write(`Beans is serving on ${url}#token=${token}\n`);
  // Routines (`beans routines add`): each tick claimed here is a background session of this server.
  const routines = startRoutineScheduler({
    store: localRoutineStore(process.env),
    by: `serve:${process.pid}@${os.hostname()}`,
    run: async (routine) =>
      (
        await sessions.start({
          cwd: routine.cwd,
          prompt: routine.prompt,
          model: routine.model,
          provider: routine.provider,
          permissionMode: routine.permissionMode,
          background: true,
        })
      ).id,
    onError: (routine, error) =>
      process.stderr.write(`beans: routine ${routine.id} did not start: ${error instanceof Error ? error.message : String(error)}\n`),
  });
  // The chat's view (Ink, React: ~200 ms to load) is ready before the first `beans attach` asks for it.
  setTimeout(() => void import('../ui/run-chat.js').then((chat) => chat.preloadAttachedChat()).catch(() => undefined), 0).unref();

  await stopped;
  routines.stop();
  removeServerFile(process.env, process.pid);
  server.close();
  // Streams stay open until their sessions end; the sessions' commands are stopped with them.
  await Promise.race([sessions.closeAll(), new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())]);
  if ('closeAllConnections' in server) server.closeAllConnections();
  await runners?.close();
  return 0;
}

/**
 * With a database configured (BEANS_DATABASE_URL or workflows.databaseUrl) the runners' background
 * sessions are listed, followed and answered here too (the web view's questions). A database that
 * cannot be used stops the server with one sentence, as it stops every other command that uses it.
 */
async function runnerSessions(options: CliOptions) {
  const base = await loadRuntimeBase({ flags: configFlags(options), trusted: options.trust || undefined });
  const url = base.config.values.workflows.databaseUrl;
  if (!url) return undefined;
  const { openRunnerSessions } = await import('../runner/served-runners.js');
  return openRunnerSessions(url, `serve:${process.pid}@${os.hostname()}`);
}

/** A served session: the command line's settings, with what the client chose on top. */
async function openSession(options: CliOptions, request: SessionRequest) {
  const cwd = path.resolve(request.cwd);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`${request.cwd} is not a folder on this machine.`);
  const base = cliSessionOptions(options, 'chat');
  const flags: Record<string, unknown> = { ...base.flags };
  if (request.provider) flags.provider = request.provider;
  if (request.model) flags.model = request.model;
  if (request.permissionMode) flags['permissions.mode'] = parsePermissionMode(request.permissionMode);
  const agent = await createAgentSession({ ...base, cwd, flags, resume: request.resume, continue: false, interactive: true, mcpFromLastRun: false });
  for (const warning of agent.warnings) process.stderr.write(`beans: session ${agent.session.id}: ${warning}\n`);
  return agent;
}
