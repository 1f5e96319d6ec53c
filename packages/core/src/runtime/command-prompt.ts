import { userMessage } from '../agent/chat-session.js';
import { resolveModelAlias } from '../llm/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import { parseToolRules } from '../permissions/rules.js';
import { commandRulesAllow, type PluginCatalog } from '../plugins/index.js';
import type { ShellSandbox } from '../sandbox/index.js';
import { shellTool } from '../tools/shell.js';
import { contentText } from '../tools/tool.js';
import { isInside } from '../workspace/paths.js';
import type { RuntimeBase } from './base.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import { preparePrompt, type Prepared } from './prepare-prompt.js';
import type { SessionStorage } from './session-storage.js';

export interface CommandPromptInput {
  base: RuntimeBase;
  catalog: PluginCatalog;
  mcp: McpServerSet | undefined;
  providerId: string;
  workspaceTrusted: boolean;
  sandbox: ShellSandbox | undefined;
  storage: SessionStorage;
  permissions: Pick<PermissionChain, 'allow' | 'deny' | 'readOnlyCommands' | 'readDenied'>;
  live: Live;
}

/**
 * The session's `preparePrompt`: an MCP server's prompt (`/mcp__server__prompt args`), else slash
 * commands, skills and triggers; a command's allowed-tools and model hold for the run it starts.
 */
export function createCommandPrompt(input: CommandPromptInput): (text: string) => Promise<Prepared> {
  const { base, live, permissions, storage, sandbox } = input;
  const { allow, deny } = permissions;
  return async (text) => {
    try {
      const expanded = await input.mcp?.expandPrompt(text);
      if (expanded !== undefined) return { messages: [userMessage(expanded, 'command', text.trim())] };
    } catch (error) {
      return { error: (error as Error).message };
    }
    const prepared = await preparePrompt(text, input.catalog, {
      workspaceRoot: base.workspace.root,
      readDenied: permissions.readDenied,
      runShell: async (command, signal) => {
        const result = await shellTool.execute(
          { command },
          { signal, workspace: base.workspace, state: live.session.toolState, env: storage.toolEnv, sandbox },
        );
        const exitCode = result.details && 'exitCode' in result.details ? result.details.exitCode : 0;
        return { output: contentText(result.content), exitCode };
      },
      // Read-only lines run too (issue #31), as Claude Code runs a command's read-only context lines.
      isAllowed: (run) =>
        commandRulesAllow([...run.allowedTools, ...allow.map((rule) => rule.source)], deny, {
          readOnlyCommands: permissions.readOnlyCommands,
          workspaceRoot: base.workspace.root,
        }),
      // A repository's own commands may not loosen permissions until its owner trusts it.
      commandTrusted: (commandPath) => !isInside(base.workspace.root, commandPath) || input.workspaceTrusted,
    });
    // Said before the command runs: a workspace command hiding a built-in or user one of its name.
    if ('messages' in prepared) for (const notice of prepared.notices ?? []) live.tell(notice);
    // A command's allowed-tools and model hold for the run it starts, and only that run.
    const run = 'messages' in prepared ? prepared.run : undefined;
    if (run && (run.allowedTools.length > 0 || run.model)) {
      const added = parseToolRules(run.allowedTools);
      allow.push(...added);
      const running = live.session;
      const previousModel = running.model;
      const commandModel = run.model ? resolveModelAlias(input.providerId, run.model, previousModel) : undefined;
      if (commandModel) running.model = commandModel;
      const stop = running.subscribe((event) => {
        if (event.type !== 'agent_end') return;
        stop();
        for (const rule of added) allow.splice(allow.indexOf(rule), 1);
        // Unless someone picked another model meanwhile.
        if (commandModel && running.model === commandModel) running.model = previousModel;
      });
    }
    return prepared;
  };
}
