import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { declareServedSessionCommands, declareServerCommands } from './commands/server-commands.js';
import { declareRoutineCommands } from './commands/routine-commands.js';
import { declareRunnerCommands, RUNNER_COMMAND_NAMES } from './commands/runner-commands.js';
import { PERMISSION_MODE_CHOICES } from './permission-mode-choices.js';
import { reportError } from './report-error.js';
import type { CliOptions } from './options.js';
import { runMain } from './run-main.js';
import { VERSION } from './version.js';

/** Parses the command line and runs the chosen mode; resolves with the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => {
    exitCode = code;
  }, argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; usage mistakes with 2.
      return error.exitCode === 0 ? 0 : 2;
    }
    return reportError(error, argv.includes('--debug'));
  }
  return exitCode;
}

/**
 * Beans' commands (`beans mcp list`...). Commander dispatches to one only when an argument is its
 * name, so they are declared only then, or when help is asked for: a `beans -p` start skips making
 * ~35 commands and their options (~2 ms).
 */
export const COMMAND_NAMES = [
  'chat',
  'plugins',
  'models',
  'checkpoints',
  'rewind',
  'sessions',
  'hooks',
  'lsp',
  'mcp',
  'acp',
  'serve',
  'attach',
  'routines',
  'workflow',
  'config',
  'trust',
  'untrust',
  ...RUNNER_COMMAND_NAMES,
];
const HELP_WORDS = ['help', '-h', '--help'];

/**
 * `beans fix the failing test` without quotes is several arguments: say how to give them as one
 * prompt (Claude Code silently keeps the first word).
 */
function quoteHint(text: string): string {
  return /^too many arguments(?: for 'chat')?\. Expected 1 argument/.test(text)
    ? `${text.trimEnd()} A prompt of several words goes in quotes: beans "fix the failing test".\n`
    : text;
}

export function buildProgram(setExit: (code: number) => void, argv?: readonly string[]): Command {
  const program = new Command('beans')
    .description('A terminal coding assistant. Run `beans` in a repository to chat, or `beans -p "..."` for one-shot answers.')
    .version(VERSION, '-v, --version')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`beans: ${quoteHint(text.replace(/^error: /, ''))}`) })
    .showSuggestionAfterError();

  program
    .option('-p, --prompt <text>', 'one-shot: run the agent to completion, print the answer, exit (piped stdin is prepended)')
    .addOption(new Option('-o, --output-format <format>', 'one-shot output').choices(['text', 'json', 'stream-json']).default('text'))
    .option(
      '--provider <name>',
      'LLM provider: gemini, anthropic, openai, ollama, or an endpoint of the "providers" setting (default: the first with a key set, else ollama)',
    )
    .option('-m, --model <name>', 'model name')
    .option('--agent-profile <file-or-agent>', 'profile: a Markdown file, or a plugin agent (agent or plugin:agent)')
    .option('-a, --agent-description <text>', 'have the LLM write a profile from a description (saved to .beans/agent-profile.md)')
    .option('--yolo', 'approve every tool call')
    // Claude Code's flags, under their names (docs/coming-from-claude-code.md).
    .option('--dangerously-skip-permissions', "Claude Code's name for --yolo")
    .option('--system-prompt <text>', "replace the profile's instructions (the environment, context files and skills are still added)")
    .option('--append-system-prompt <text>', 'add text to the end of the system prompt')
    .option('--fallback-model <name>', 'when the model is overloaded or failing after retries, answer with this one (aliases work)')
    .option('--settings <file-or-json>', 'settings from a file or JSON text, above the settings files')
    .option('--add-dir <dirs...>', 'more folders the file tools may read and write, besides the workspace')
    .addOption(new Option('--permission-mode <mode>', 'permission mode').choices(PERMISSION_MODE_CHOICES))
    // Repeatable: a second --disallowed-tools adds rules; it must never silently drop the first.
    .option('--allowed-tools <rules>', 'tools that run without asking, e.g. "write_file,shell(git *)" (repeatable)', collect)
    .option('--disallowed-tools <rules>', 'tools that never run, e.g. "shell(rm *)" (repeatable)', collect)
    // Claude Code's spellings, which the Claude Agent SDK passes.
    .addOption(new Option('--allowedTools <rules>').hideHelp().argParser(collect))
    // The SDK's safety switch for bypassPermissions; Beans' --yolo needs none, so it only has to be accepted.
    .addOption(new Option('--allow-dangerously-skip-permissions').hideHelp())
    .addOption(new Option('--disallowedTools <rules>').hideHelp().argParser(collect))
    .option('--max-turns <n>', 'stop after this many model turns', positiveInt)
    .option('--max-thinking-tokens <n>', 'how many tokens the model may think (0: off); the thinking setting also takes off, low, medium, high', nonNegativeInt)
    // The Claude Agent SDK passes --thinking=disabled for maxThinkingTokens: 0 and --thinking=adaptive for its default.
    .addOption(new Option('--thinking <mode>').choices(['disabled', 'adaptive', 'enabled']).hideHelp())
    .option('--max-budget-usd <x>', 'stop when the cost reaches this many dollars', positiveNumber)
    .option('-c, --continue', 'continue the newest session of this workspace')
    .option('-r, --resume [id]', 'resume a session by id (a unique prefix is enough); in chat without an id, pick one from a list')
    .option('--plugin-dir <dir>', 'an extra plugin root (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option(
      '--mcp-config <file-or-json>',
      'MCP servers from a file or JSON text with {"mcpServers": ...} (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--strict-mcp-config', 'use only the MCP servers of --mcp-config')
    .option('--debug', 'show stack traces and debug details')
    // The Claude Agent SDK passes --verbose; stream-json is always complete, so it changes nothing.
    .option('--verbose', 'accepted for compatibility: stream-json output is always verbose')
    .option(
      '--json-schema <schema>',
      'the final answer must be JSON valid against this JSON Schema (JSON text or a file); json and stream-json results carry it as structured_output',
    )
    .addOption(
      new Option(
        '--tool-names <vocabulary>',
        "json and stream-json: Beans' tool names, or Claude Code's (Write with file_path); the SDK protocol always uses claude",
      )
        .choices(['beans', 'claude'])
        .default('beans'),
    )
    .option('--include-partial-messages', 'with -o stream-json: also print raw stream events as text and tool input arrive')
    .addOption(
      new Option('--input-format <format>', 'one-shot input: text, or stream-json (the Claude Agent SDK protocol)')
        .choices(['text', 'stream-json'])
        .default('text'),
    )
    .addOption(
      new Option('--permission-prompt-tool <tool>', 'who answers permission questions in stream-json input: stdio (the SDK program)').choices(['stdio']),
    )
    .option('--setting-sources <list>', 'settings files to read: user,project,local (default all)', settingSources)
    .option('--session-id <uuid>', 'the id of a new session (a UUID, as Claude Code takes)', sessionUuid)
    .option('--fork-session', 'with --resume or --continue: continue in a new session (a copy up to that point), leaving the original as it was')
    .option('--resume-session-at <message-uuid>', 'with --resume: continue after that message, dropping what followed it')
    // The Claude Agent SDK's mcpServersDelivery: 'initialize': it sends its servers in the initialize request.
    .addOption(new Option('--await-initialize').hideHelp())
    .option('--no-session-persistence', 'keep no session file')
    .option('--agents <json>', 'subagents for the task tool, as JSON: {"name": {"description", "prompt", "tools"?, "model"?}}')
    .option('--trust', 'trust this folder for this run: apply its own looser permissions, hooks and MCP servers')
    .option('--sandbox', 'run shell commands in an OS sandbox: writes only in the workspace and temp, no network but allowed hosts')
    .option('--keep-tasks', "one-shot: leave the model's background commands running at exit (by default they are stopped)")
    .option(
      '--loop <interval>',
      'one-shot: run the prompt now and again every interval (10s at least; s, m, h, d), each run printed; --max-runs N stops after N',
    )
    .option('--max-runs <n>', 'one-shot with --loop: the number of runs')
    .option('--background', 'one-shot: hand the session to the session server (started when none runs), print its id and exit; beans attach ID follows it');

  // `beans "fix the failing test"`: the chat with that prompt sent first, as `claude "..."`.
  const run = async (forceChat: boolean, initialPrompt?: string) => {
    const options = program.opts<CliOptions>();
    setExit(await runMain(options, { forceChat, ...(initialPrompt !== undefined ? { initialPrompt } : {}) }));
  };
  program.argument('[prompt]', 'start the chat with this prompt sent first (as claude "...")').action((prompt?: string) => run(false, prompt));
  if (!argv || argv.some((word) => COMMAND_NAMES.includes(word) || HELP_WORDS.includes(word))) declareCommands(program, run, setExit);
  return program;
}

function declareCommands(program: Command, run: (forceChat: boolean, initialPrompt?: string) => Promise<void>, setExit: (code: number) => void): void {
  program
    .command('chat [prompt]')
    .description('open an interactive session (the default), with a first prompt when one is given')
    .action((prompt?: string) => run(true, prompt));

  type Listing = (options: CliOptions, local: { json?: boolean }) => Promise<number>;
  // `beans <noun> list [--json]`; each listing's module loads only when it runs.
  const listing = (noun: string, about: string, description: string, load: () => Promise<Listing>) =>
    program
      .command(noun)
      .description(about)
      .command('list')
      .description(description)
      .option('--json', 'print JSON')
      .action(async (local: { json?: boolean }) => setExit(await (await load())(program.opts<CliOptions>(), local)));
  const plugins = listing(
    'plugins',
    'inspect and install plugins',
    'every plugin with its agents, skills and commands, and every load problem',
    async () => (await import('./commands/plugins-list.js')).pluginsList,
  ).parent!;
  type Marketplace = typeof import('./commands/plugins-marketplace.js');
  const pluginAction =
    <A extends unknown[]>(pick: (module: Marketplace) => (options: CliOptions, ...args: A) => Promise<number>) =>
    async (...args: A) =>
      setExit(await pick(await import('./commands/plugins-marketplace.js'))(program.opts<CliOptions>(), ...args));
  const marketplace = plugins.command('marketplace').description('plugin marketplaces in the Claude Code format');
  marketplace
    .command('add <source>')
    .description('add a marketplace: a folder, a git URL or owner/repo')
    .action(pluginAction((m) => m.marketplaceAdd));
  marketplace
    .command('list')
    .description('added marketplaces and their plugins')
    .option('--json', 'print JSON')
    .action(pluginAction((m) => m.marketplaceList));
  marketplace
    .command('update [name]')
    .description('pull the newest version of git marketplaces')
    .action(pluginAction((m) => m.marketplaceUpdate));
  marketplace
    .command('remove <name>')
    .description('forget a marketplace')
    .action(pluginAction((m) => m.marketplaceRemove));
  plugins
    .command('install <plugin>')
    .description('install plugin[@marketplace] into the user plugin folder')
    .action(pluginAction((m) => m.pluginInstall));
  plugins
    .command('uninstall <plugin>')
    .description('remove an installed plugin')
    .action(pluginAction((m) => m.pluginUninstall));
  plugins
    .command('update <plugin>')
    .description('re-install a plugin from its marketplace')
    .action(pluginAction((m) => m.pluginUpdate));
  plugins
    .command('enable <plugin>')
    .description('load an installed plugin again')
    .action(pluginAction((m) => (options: CliOptions, name: string) => m.pluginSetEnabled(options, name, true)));
  plugins
    .command('disable <plugin>')
    .description('keep an installed plugin but do not load it')
    .action(pluginAction((m) => (options: CliOptions, name: string) => m.pluginSetEnabled(options, name, false)));
  listing(
    'models',
    'inspect and download models',
    'models the provider offers, and the local models pulled',
    async () => (await import('./commands/models-list.js')).modelsList,
  )
    .parent!.command('pull [uri]')
    .description('download a GGUF model for --provider local (default: Qwen3 1.7B): hf:<user>/<repo>:<quant>, hf:<user>/<repo>/<file>.gguf or an https URL')
    .option('--sha256 <sha256>', 'the SHA-256 the file must have')
    .option('--force', 'download again, even over a finished or partial file')
    .action(async (uri: string | undefined, local: { sha256?: string; force?: boolean }) =>
      setExit(await (await import('./commands/models-pull.js')).modelsPull(uri, local)),
    );
  listing(
    'checkpoints',
    'file checkpoints of a session (-r ID, else the newest)',
    "the session's user messages and rewinds, with the files each changed",
    async () => (await import('./commands/checkpoints.js')).checkpointsList,
  );
  program
    .command('rewind <user-message-uuid>')
    .description('put the code and the conversation back as they were at a user message of a session (-r ID, else the newest)')
    .option('--code', 'only the code')
    .option('--conversation', 'only the conversation')
    .option('--dry-run', 'show what would change, change nothing')
    .option('--force', 'also overwrite files changed by hand since Beans last wrote them')
    .option('--json', 'print JSON')
    .action(async (messageId: string, local: import('./commands/checkpoints.js').RewindFlags) => {
      const { rewindCommand } = await import('./commands/checkpoints.js');
      setExit(await rewindCommand(program.opts<CliOptions>(), messageId, local));
    });
  const sessions = listing(
    'sessions',
    'inspect saved sessions, and those the session server runs',
    'sessions of this workspace, newest first (with their state when the session server runs them)',
    async () => (await import('./commands/sessions-list.js')).sessionsList,
  );
  declareServedSessionCommands(sessions.parent!, setExit);
  declareRoutineCommands(program, setExit);
  listing('hooks', 'inspect hooks', 'configured hooks with their event, matcher and source', async () => (await import('./commands/hooks-list.js')).hooksList);
  listing(
    'lsp',
    'inspect language servers',
    'language servers from plugins (lspServers, .lsp.json) and the lsp.servers setting',
    async () => (await import('./commands/lsp-list.js')).lspList,
  );

  const mcp = program.command('mcp').description('MCP servers: list, add, remove; serve Beans as one');
  mcp
    .command('list')
    .description('every configured MCP server with its status and tools')
    .option('--json', 'print JSON')
    .action(async (local: { json?: boolean }) => setExit(await (await import('./commands/mcp.js')).mcpList(program.opts<CliOptions>(), local)));
  mcp
    .command('add <name> <command-or-url> [args...]')
    .description("add a server to the project's .mcp.json, or the scope's settings (put -- before a command's own options)")
    .addOption(new Option('-t, --transport <transport>', 'how to reach it').choices(['stdio', 'http', 'sse']).default('stdio'))
    .addOption(
      new Option('-s, --scope <scope>', 'project: .mcp.json; local: .beans/settings.local.json; user: your settings')
        .choices(['project', 'local', 'user'])
        .default('project'),
    )
    .option('-e, --env <KEY=VALUE>', 'an environment variable for a stdio server (repeatable)', (value: string, previous: string[] = []) => [
      ...previous,
      value,
    ])
    .option('-H, --header <header>', 'an HTTP header "Name: value" (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .action(async (name: string, target: string, args: string[], local: import('./commands/mcp.js').McpAddOptions) =>
      setExit(await (await import('./commands/mcp.js')).mcpAdd(program.opts<CliOptions>(), name, target, args, local)),
    );
  mcp
    .command('remove <name>')
    .description('remove a server from .mcp.json or the settings that hold it')
    .addOption(new Option('-s, --scope <scope>', 'only this scope').choices(['project', 'local', 'user']))
    .action(async (name: string, local: { scope?: import('./commands/mcp.js').McpScope }) =>
      setExit(await (await import('./commands/mcp.js')).mcpRemove(program.opts<CliOptions>(), name, local)),
    );

  mcp
    .command('serve')
    .description("run Beans as an MCP server on stdio: its file tools, shell by mode, an agent tool, and this workspace's sessions as resources")
    .option('--http <port>', 'serve Streamable HTTP on 127.0.0.1:PORT/mcp instead, with a bearer token printed once (0: any free port)')
    .addOption(new Option('--permission-mode <mode>', 'default: read tools; auto-edit: and edit tools; yolo: and shell').choices(PERMISSION_MODE_CHOICES))
    .option('--cwd <dir>', 'the workspace to serve (default: this folder)')
    .action(async (local: import('./commands/mcp-serve.js').McpServeOptions) =>
      setExit(await (await import('./commands/mcp-serve.js')).mcpServe(program.opts<CliOptions>(), local)),
    );

  // `beans acp`: an Agent Client Protocol agent on stdio for editors; its code loads only here.
  program
    .command('acp')
    .description('run as an Agent Client Protocol agent on stdin/stdout, for Zed, JetBrains, Neovim, Emacs and other ACP editors')
    .action(async () => setExit(await (await import('./acp/index.js')).runAcp(program.opts<CliOptions>())));

  declareServerCommands(program, setExit);
  declareRunnerCommands(program, setExit);

  // `beans workflow run|list|runs|resume|wait|cancel|worker`: WORKFLOW.md workflows; the engine loads only when one runs.
  type WorkflowCommands = typeof import('./commands/workflow.js');
  const workflowAction =
    <A extends unknown[]>(pick: (module: WorkflowCommands) => (options: CliOptions, ...args: A) => Promise<number>) =>
    async (...args: A) =>
      setExit(await pick(await import('./commands/workflow.js'))(program.opts<CliOptions>(), ...args));
  const workflow = program.command('workflow').description('declarative multi-agent workflows (WORKFLOW.md) with progress and checkpoints');
  const backendOption = () =>
    new Option('--backend <backend>', 'where runs live: local (.beans/runs) or dbos (PostgreSQL, workers)').choices(['local', 'dbos']);
  workflow
    .command('run <file-or-name>')
    .description('run a workflow file, or one listed by `beans workflow list`')
    .option('--input <key=value>', 'a workflow input (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--detach', 'dbos: queue the run for the workers, print its id and exit')
    .option('--no-work', 'dbos: do not run agent calls in this process (workers do)')
    .addOption(backendOption())
    .action(workflowAction((m) => m.workflowRun));
  workflow
    .command('list')
    .description("workflows: WORKFLOW.md at the repository root, .beans/workflows/ and plugins' workflows/ folders")
    .option('--json', 'print JSON')
    .action(workflowAction((m) => m.workflowList));
  workflow
    .command('runs')
    .description('past runs and their status (dbos: which worker ran each call)')
    .option('--json', 'print JSON')
    .addOption(backendOption())
    .action(workflowAction((m) => m.workflowRuns));
  workflow
    .command('resume <run-id>')
    .description('continue a stopped run from its last checkpoint')
    .option('--no-work', 'dbos: do not run agent calls in this process (workers do)')
    .addOption(backendOption())
    .action(workflowAction((m) => m.workflowResume));
  workflow
    .command('wait <run-id>')
    .description('follow a run to its end (dbos: started on any machine)')
    .addOption(backendOption())
    .action(workflowAction((m) => m.workflowWait));
  workflow
    .command('cancel <run-id>')
    .description('stop a run wherever it runs; it stays resumable')
    .addOption(backendOption())
    .action(workflowAction((m) => m.workflowCancel));
  workflow
    .command('worker')
    .description('dbos: serve workflow runs and agent calls from the database until SIGTERM')
    .option('--id <name>', "this worker's id; started again under the same id it recovers its calls in flight")
    .option('--concurrency <n>', 'calls this worker runs at once (workflows.workerConcurrency)')
    .addOption(backendOption())
    .action(workflowAction((m) => m.workflowWorker));

  const config = program
    .command('config')
    .description('show every effective setting and where it came from')
    .option('--json', 'print JSON')
    .action(async (local: { json?: boolean }) => {
      const { configShow } = await import('./commands/config.js');
      setExit(await configShow(program.opts<CliOptions>(), local));
    });
  config
    .command('set <key> <value>')
    .description('write a setting to .beans/settings.json (or the user file with --global)')
    .option('--global', 'write the user settings file')
    .action(async (key: string, value: string, local: { global?: boolean }) => {
      const { configSet } = await import('./commands/config.js');
      setExit(await configSet(program.opts<CliOptions>(), key, value, local));
    });

  // `beans trust [DIR]`, `beans untrust [DIR]`: the user's list of trusted folders.
  for (const [name, decision, about] of [
    ['trust', 'trusted', 'trust a folder (default: this workspace): its own looser permissions, hooks and MCP servers apply'],
    ['untrust', 'untrusted', 'stop trusting a folder (default: this workspace): its own looser settings are ignored'],
  ] as const) {
    program
      .command(`${name} [dir]`)
      .description(about)
      .action(async (dir: string | undefined) => {
        const { trustCommand } = await import('./commands/trust.js');
        setExit(await trustCommand(decision, dir));
      });
  }
}

function settingSources(value: string): string[] {
  const sources = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const wrong = sources.filter((source) => !['user', 'project', 'local'].includes(source));
  if (wrong.length > 0) throw new InvalidArgumentError(`unknown source ${wrong.join(', ')}; use user, project and local.`);
  return sources;
}

// Claude Code's rule and words: programs store session ids as UUIDs (the Agent SDK's sessionId).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function sessionUuid(value: string): string {
  if (!UUID.test(value)) throw new InvalidArgumentError('Invalid session ID. Must be a valid UUID.');
  return value;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number.');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number, 0 or more.');
  return n;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number.');
  return n;
}

/** Commander parser for a repeatable option: every value is kept, in order. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
