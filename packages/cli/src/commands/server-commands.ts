import type { Command } from 'commander';
import type { CliOptions } from '../options.js';

/** `beans serve`: the session server (HTTP API v1 and the web view); its code loads only when it runs. */
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
}
