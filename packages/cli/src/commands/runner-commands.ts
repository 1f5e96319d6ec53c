import type { Command } from 'commander';
import type { CliOptions } from '../options.js';

/** The command names declared here: cli.ts declares commands only when one is named. */
export const RUNNER_COMMAND_NAMES = ['runner'];

/** `beans runner`: background sessions from the database (DBOS over PostgreSQL); its code (and DBOS, pg) loads only when it runs. */
export function declareRunnerCommands(program: Command, setExit: (code: number) => void): void {
  program
    .command('runner')
    .description('take background sessions queued in the database (BEANS_DATABASE_URL) and run them on this machine until SIGTERM or Ctrl+C, which drains')
    .option('--id <name>', "this runner's name; started again under the same name, it recovers what it ran (default: host name and pid)")
    .option('--concurrency <n>', 'sessions this runner runs at once (runners.concurrency, default 1)')
    .option('--workdir <dir>', "where the runner keeps the repositories' mirrors and the sessions' worktrees (runners.workdir)")
    .action(async (local: import('../runner/runner-command.js').RunnerFlags) =>
      setExit(await (await import('../runner/runner-command.js')).runRunner(program.opts<CliOptions>(), local)),
    );
}
