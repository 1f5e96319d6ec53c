import type { Command } from 'commander';
import type { CliOptions } from '../options.js';

/** `beans serve` (the session server: HTTP API v1 and the web view) and `beans attach`; their code loads only when they run. */
export function declareServerCommands(program: Command, setExit: (code: number) => void): void {
  program
    .command('serve')
    .description('host sessions over HTTP (API v1 and a web view) until Ctrl+C; prints the URL with its token')
    .option('--host <address>', 'the address to listen on (default 127.0.0.1: this machine only)')
    .option('--port <n>', 'the port (default 0: any free port)')
    .option('--allow-host <name>', 'another Host name to answer to, e.g. a reverse proxy (repeatable)', (value: string, previous: string[] = []) => [
      ...previous,
      value,
    ])
    .action(async (local: import('../server/serve.js').ServeFlags) =>
      setExit(await (await import('../server/serve.js')).runServe(program.opts<CliOptions>(), local)),
    );

  program
    .command('attach [id]')
    .description(
      "open the chat on a session the local server (or BEANS_SERVER_URL) runs, or follow a runner's background session (with a database), the newest without an id; leaving it leaves the session running",
    )
    .action(async (id: string | undefined) => setExit(await (await host(program)).attach(id)));
}

/** The local session server, or the runners' database when one is configured (server/choose-host.ts). */
async function host(command: Command) {
  return (await import('../server/choose-host.js')).sessionHost(command.optsWithGlobals<CliOptions>());
}

/** `beans sessions show|wait <id>`: a session the session server (or a runner) runs, and waiting for its end. */
export function declareServedSessionCommands(sessions: Command, setExit: (code: number) => void): void {
  sessions
    .command('show <id>')
    .description('one session the session server or a runner runs: state, runner, branch, folder, title, exit code')
    .option('--json', 'print JSON')
    .action(async (id: string, local: { json?: boolean }) => setExit(await (await host(sessions)).show(id, local)));
  sessions
    .command('wait <id>')
    .description("wait until the session's turn ends; exits with its code (0 success, 1 error, 4 limit)")
    .action(async (id: string) => setExit(await (await host(sessions)).wait(id)));
}
