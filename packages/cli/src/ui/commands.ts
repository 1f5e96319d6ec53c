import { parseThinking } from '@beans/core';
import type { SlashCommandInfo } from '../chat-agent.js';
import { contextTokens, heading, table, type Builtin } from './command-kit.js';
import { span, wrapText, type StyledLine } from './styled.js';
import { SESSION_BUILTINS } from './session-commands.js';
import { TASKS_BUILTIN } from './tasks-command.js';
import { REWIND_BUILTINS } from './rewind-command.js';
import { EXPORT_BUILTINS } from './export-commands.js';
import { CONTEXT_BUILTINS } from './context-command.js';
import { MCP_BUILTINS } from './mcp-command.js';
import { LSP_BUILTINS } from './lsp-command.js';
import { VIM_BUILTINS } from './vim-command.js';
import { TODOS_BUILTINS } from './todos-view.js';
import { KEYS_HELP } from './keys-help.js';
import { BTW_BUILTINS } from './btw-command.js';
import { STATUSLINE_BUILTINS } from './statusline-command.js';
import { RESUME_BUILTINS } from './resume-command.js';
import { BACKGROUND_BUILTINS } from './background-command.js';
import { formatTokens } from './status-line.js';

const BUILTINS: Record<string, Builtin> = {
  help: {
    description: 'list every command',
    run(_args, { host, width, print }) {
      const all = allCommands(host.slashCommands());
      const label = (command: SlashCommandInfo) => `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ''}`;
      const groups: [string, SlashCommandInfo[]][] = [
        ['Commands', all.filter((command) => command.source === 'builtin')],
        ['Plugin commands', all.filter((command) => command.source === 'command')],
        ['Skills', all.filter((command) => command.source === 'skill')],
      ];
      const out: StyledLine[] = [];
      for (const [title, commands] of groups) {
        if (commands.length === 0) continue;
        out.push(
          heading(title),
          ...table(
            commands.map((command) => ({ name: label(command), description: command.description })),
            width,
            '',
          ),
        );
      }
      out.push(heading('Keys'), ...table([...KEYS_HELP], width, '', true));
      print(out);
    },
  },
  profile: {
    description: 'show the active profile and why it was chosen',
    run(_args, { host, width, print }) {
      print(wrapText(host.describeProfile(), width));
    },
  },
  thinking: {
    description: 'show or set how much the model may think: off, low, medium, high or a token budget',
    argumentHint: '[off | low | medium | high | <tokens> | default]',
    run(args, { session, note }) {
      if (!args) return note('info', `Thinking: ${session.thinking ?? "the provider's default"}. Set it with /thinking off|low|medium|high|<tokens>|default.`);
      if (args === 'default') {
        session.thinking = undefined;
        return note('info', "Thinking is back to the provider's default from the next request on.");
      }
      const thinking = parseThinking(args);
      if (thinking === undefined) return note('error', `"${args}" is not off, low, medium, high, a token budget or default.`);
      session.thinking = thinking;
      note('info', `Thinking: ${thinking} from the next request on.`);
    },
  },
  sop: {
    description: 'show or set the standard operating procedure',
    argumentHint: '[text | --clear]',
    run(args, { session, width, print, note }) {
      if (args === '--clear') {
        session.setSop('');
        return note('info', 'The standard operating procedure is cleared.');
      }
      if (args) {
        session.setSop(args);
        return note('info', 'The standard operating procedure is set; the model sees it from the next request on.');
      }
      if (!session.sop) return note('info', 'No standard operating procedure is set. Set one with /sop <text>.');
      print([heading('Standard operating procedure'), ...wrapText(session.sop, width, undefined, { first: [span('  ')], continuation: [span('  ')] })]);
    },
  },
  clear: {
    description: 'start a fresh conversation on a clear screen',
    idleOnly: true,
    async run(_args, { host, clearScreen, note }) {
      await host.newConversation();
      clearScreen();
      note('info', `New conversation (session ${host.session.id}).`);
    },
  },
  exit: { description: 'leave Beans', run: (_args, { exit }) => exit(0) },
  quit: { description: 'leave Beans', run: (_args, { exit }) => exit(0) },
  model: {
    description: 'pick a model from a list, or switch to one by name',
    argumentHint: '[name]',
    idleOnly: true,
    async run(args, { host, session, note, runTask, openPicker }) {
      const switchTo = (name: string) => runTask('Switching model', async () => note('info', await host.switchModel(name)));
      if (args) return switchTo(args);
      await runTask('Listing models', async (signal) => {
        const models = await host.listModels(signal);
        if (models.length === 0) return note('info', `${session.provider} lists no models. Switch with /model <name>.`);
        openPicker({
          title: `Models (${session.provider}) — current: ${session.model}`,
          selected: Math.max(
            0,
            models.findIndex((model) => model.name === session.model),
          ),
          action: 'switch',
          items: models.map((model) => ({
            value: model.name,
            label: `${model.name === session.model ? '●' : ' '} ${model.name}`,
            detail: [
              model.contextWindow ? `${formatTokens(model.contextWindow)} context` : '',
              model.supportsTools === false ? 'no tools' : '',
              model.description ?? '',
            ]
              .filter(Boolean)
              .join(' · '),
          })),
          onSelect: switchTo,
        });
      });
    },
  },
  agents: {
    description: 'list plugin agents (● the one holding the conversation)',
    run(_args, { host, width, print }) {
      const agents = host.listAgents();
      const rows = agents.some((agent) => agent.active) ? agents.map((agent) => ({ ...agent, name: `${agent.active ? '●' : ' '} ${agent.name}` })) : agents;
      print([heading('Agents'), ...table(rows, width, '  (no agents)', true)]);
    },
  },
  agent: {
    description: 'hand the conversation to another agent',
    argumentHint: '<name>',
    idleOnly: true,
    async run(args, { host, note }) {
      if (!args) return note('info', 'Give an agent: /agent <name>. /agents lists them.');
      try {
        await host.switchAgent(args);
      } catch (error) {
        note('error', (error as Error).message);
      }
    },
  },
  skills: {
    description: 'list skills',
    run: (_args, { host, width, print }) => print([heading('Skills'), ...table(host.listSkills(), width, '  (no skills)')]),
  },
  tools: {
    description: 'list the tools the model can use',
    run(_args, { session, width, print }) {
      const rows = session.tools.list().map((tool) => ({ name: tool.name, description: `${tool.kind} · ${firstSentence(tool.description)}` }));
      print([heading('Tools'), ...table(rows, width, '  (no tools)')]);
    },
  },
  cost: {
    description: 'tokens and cost of this session',
    run(_args, { host, session, usage, print }) {
      const cost = !usage.costKnown ? 'unknown (no price for this model)' : usage.costUsd > 0 ? `$${usage.costUsd.toFixed(4)}` : '$0 (free or local model)';
      const window = host.contextWindow();
      const used = contextTokens(session);
      const rows: StyledLine[] = [
        heading('Usage this session'),
        [span('  tokens   '), span(`${usage.inputTokens.toLocaleString('en-US')} in · ${usage.outputTokens.toLocaleString('en-US')} out`)],
        // Prompt caching: what was read back at the provider's discount, and written (Anthropic bills writes at 1.25x).
        ...(usage.cacheReadTokens || usage.cacheWriteTokens
          ? [
              [
                span('  cache    '),
                span(`${usage.cacheReadTokens.toLocaleString('en-US')} read · ${usage.cacheWriteTokens.toLocaleString('en-US')} written`),
              ] as StyledLine,
            ]
          : []),
        [span('  cost     '), span(cost)],
      ];
      if (window) rows.push([span('  context  '), span(`${formatTokens(used)} of ${formatTokens(window)} (${Math.round((used / window) * 100)}%)`)]);
      print(rows);
    },
  },
  hooks: {
    description: 'list the hooks that run in this session',
    run(_args, { host, width, print }) {
      const rows = host
        .listHooks()
        .map((hook) => ({ name: `${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ''}`, description: `${hook.command} (${hook.source})` }));
      print([heading('Hooks'), ...table(rows, width, 'No hooks configured (settings "hooks", or a plugin\'s hooks/hooks.json).')]);
    },
  },
  plugins: {
    description: 'list loaded plugins with their version and source',
    async run(_args, { host, width, print }) {
      const rows = (await host.listPlugins()).map((plugin) => ({
        name: `${plugin.name}${plugin.version ? ` ${plugin.version}` : ''}`,
        description: `${plugin.contents} · ${plugin.from}`,
      }));
      print([heading('Plugins'), ...table(rows, width, 'No plugins loaded. Install one with: beans plugins install <plugin>@<marketplace>')]);
    },
  },
  compact: {
    description: 'summarise older turns to free context',
    idleOnly: true,
    async run(_args, { host, note, runTask }) {
      await runTask('Compacting the conversation', async (signal) => note('info', await host.compact(signal)));
    },
  },
  memory: {
    description: 'show the memory files; pick one to open in $EDITOR (# note saves a note)',
    async run(_args, { host, width, print, note, openPicker }) {
      const files = await host.memoryFiles();
      print([
        heading('Memory files'),
        ...table(
          files.map((file) => ({ name: file.label, description: `${file.path}${file.exists ? '' : ' (not created yet)'}` })),
          width,
          '',
        ),
      ]);
      openPicker({
        title: 'Open a memory file in your editor',
        selected: 0,
        items: files.map((file) => ({ value: file.path, label: file.label, detail: file.path })),
        onSelect: async (file) => note('info', await host.editFile(file)),
      });
    },
  },
  init: {
    description: 'have the agent write AGENTS.md for this repository',
    argumentHint: '[focus]',
  },
  ...SESSION_BUILTINS,
  tasks: TASKS_BUILTIN,
  ...REWIND_BUILTINS,
  ...EXPORT_BUILTINS,
  ...CONTEXT_BUILTINS,
  ...MCP_BUILTINS,
  ...LSP_BUILTINS,
  ...VIM_BUILTINS,
  ...TODOS_BUILTINS,
  ...BTW_BUILTINS,
  ...STATUSLINE_BUILTINS,
  ...RESUME_BUILTINS,
  ...BACKGROUND_BUILTINS,
};

export { contextTokens, type Builtin, type CommandContext } from './command-kit.js';

export function findBuiltin(name: string): Builtin | undefined {
  return Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
}

export const BUILTIN_NAMES = Object.keys(BUILTINS);

/** The chat's own commands first, then the host's plugin commands and skills. */
export function allCommands(hostCommands: readonly SlashCommandInfo[]): SlashCommandInfo[] {
  const builtins = Object.entries(BUILTINS).map(([name, builtin]): SlashCommandInfo => ({
    name,
    description: builtin.description,
    argumentHint: builtin.argumentHint,
    source: 'builtin',
  }));
  return [...builtins, ...hostCommands.filter((command) => command.source !== 'builtin')];
}

function firstSentence(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  const stop = line.search(/\.\s/);
  return stop === -1 ? line : line.slice(0, stop + 1);
}
