import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, stateDir } from '@beans/core';
import type { CliOptions } from '../options.js';
import { ServerClient, findServer } from './client.js';
import { readServerFile } from './server-file.js';

/** How long a server started here may take to write its file. */
const SERVER_START_MS = 10_000;

/**
 * `beans -p "..." --background`: the session goes to the local session server (started, detached
 * from this terminal, when none runs) and this command prints its id at once. `beans attach ID`
 * follows it; `beans sessions wait ID` waits for it.
 */
export async function runBackground(options: CliOptions, prompt: string): Promise<number> {
  const client = await localServer();
  const { id } = await client.call<{ id: string }>('POST', 'v1/sessions', {
    cwd: process.cwd(),
    prompt,
    background: true,
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.yolo || options.dangerouslySkipPermissions
      ? { permissionMode: 'yolo' }
      : options.permissionMode
        ? { permissionMode: options.permissionMode }
        : {}),
  });
  process.stdout.write(`${id}\n`);
  return 0;
}

/** The session server this machine uses: the running one, or one started now. */
export async function localServer(): Promise<ServerClient> {
  return new ServerClient(findServer(process.env) ?? (await startServer()));
}

/**
 * `/background` in the chat, after it closed its session: the session server resumes it (the same
 * model and permission mode), with a prompt to work on when one was given. Returns what to tell the user.
 */
export async function continueInBackground(session: { id: string; cwd: string; model: string; permissionMode: string; prompt?: string }): Promise<string> {
  const client = await localServer();
  const { id } = await client.call<{ id: string }>('POST', 'v1/sessions', {
    cwd: session.cwd,
    resume: session.id,
    model: session.model,
    permissionMode: session.permissionMode,
    ...(session.prompt ? { prompt: session.prompt } : {}),
  });
  return `Session ${id} goes on in the session server (${client.url}); \`beans attach ${id}\` comes back to it.\n`;
}

/** `beans serve` in the background, outliving this terminal; its output goes to a log in Beans' state folder. */
async function startServer(): Promise<{ url: string; token: string }> {
  const log = path.join(stateDir(process.env), 'server.log');
  mkdirSync(path.dirname(log), { recursive: true, mode: 0o700 });
  const out = openSync(log, 'a', 0o600);
  // The same Beans as this one: the entry point this process was started with.
  const child = spawn(process.execPath, [process.argv[1], 'serve'], { detached: true, stdio: ['ignore', out, out], env: process.env, cwd: process.cwd() });
  child.unref();
  for (const deadline = Date.now() + SERVER_START_MS; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const started = readServerFile(process.env);
    if (started && started.pid === child.pid) return started;
    if (child.exitCode !== null) break;
  }
  throw new ConfigError(`The session server did not start (see ${log}); start it yourself with \`beans serve\`.`);
}
