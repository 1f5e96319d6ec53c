import { Option, type Command } from 'commander';
import type { CliOptions } from '../options.js';
import { PERMISSION_MODE_CHOICES } from '../permission-mode-choices.js';

/** `beans routines add|list|remove`: prompts `beans serve` (or the runners) run on a schedule; the code loads only when they run. */
export function declareRoutineCommands(program: Command, setExit: (code: number) => void): void {
  const routines = program
    .command('routines')
    .description('prompts run on a schedule, each run a background session: by the runners when a database is configured, else by beans serve');
  const load = () => import('./routines.js');
  const options = () => program.opts<CliOptions>();
  routines
    .command('add <cron> <prompt>')
    .description('add a routine: a 5-field cron expression in local time, and the prompt')
    .option('--cwd <dir>', 'the folder the sessions work in (default: this one; on runners, its repository at origin)')
    .option('--model <name>', 'the model of its sessions')
    .option('--provider <name>', 'the provider of its sessions')
    .addOption(
      new Option(
        '--permission-mode <mode>',
        'the permission mode of its sessions (default: they ask; a question waits in beans attach or the web view)',
      ).choices(PERMISSION_MODE_CHOICES),
    )
    .action(async (cron: string, prompt: string, local: { cwd?: string; model?: string; provider?: string }) =>
      setExit(await (await load()).routinesAdd(options(), cron, prompt, local)),
    );
  routines
    .command('list')
    .description('every routine with its next run and its latest runs')
    .option('--json', 'print JSON')
    .action(async (local: { json?: boolean }) => setExit(await (await load()).routinesList(options(), local)));
  routines
    .command('remove <id>')
    .description('remove a routine (runs already started go on)')
    .action(async (id: string) => setExit(await (await load()).routinesRemove(options(), id)));
}
