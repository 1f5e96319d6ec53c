import type { SubmitInput, SubmitOutcome } from '../runtime/submit.js';
import { BeansError } from '../errors.js';
import { modelLimits } from '../llm/providers.js';
import { beansToolNameOf, claudeToolName, fromClaudeInput, toClaudeInput } from '../claude/vocabulary.js';
import { createAgentSession, type AgentSession } from '../runtime/agent-session.js';
import { AsyncQueue } from '../runtime/async-queue.js';
import { parsePermissionMode, sdkPermissionMode } from '../runtime/permission-mode.js';
import { fromSdkUser, submitSummary, type SdkUserInput } from '../runtime/query.js';
import { SdkMessageMapper, startupFailureResult } from '../runtime/sdk-messages.js';
import type { AgentSessionOptions, CanUseTool } from '../runtime/session-options.js';
import { rewindFilesResult } from '../runtime/session-checkpoints.js';
import { watchBackgroundTasks } from '../runtime/task-events.js';
import { ControlChannel, type ControlRequest, type ControlResponse } from './control-channel.js';
import { sdkHooksNotRun, sdkProgramHooks, type SdkHookRegistrations } from './sdk-hooks.js';
import { sdkMcpServers } from './sdk-mcp.js';
import { answerMcpControl, MCP_CONTROL_SUBTYPES } from './sdk-mcp-control.js';
import { randomUuid } from '../random-ids.js';
import { parseInlineAgents } from '../subagents/agents.js';

export interface SdkProtocolOptions {
  /** The session as the command line describes it; `initialize` adds the program's part. */
  session: AgentSessionOptions;
  /** `--permission-prompt-tool stdio`: ask the program with `can_use_tool` whenever the policy would ask. */
  permissionPromptTool?: string;
  /** `--await-initialize`: the session waits for the program's initialize request (its MCP servers come in it). */
  awaitInitialize?: boolean;
  includePartialMessages?: boolean;
  /** Lines of the program's stdin. */
  lines: AsyncIterable<string>;
  /** Writes one line to stdout. */
  write: (line: string) => void;
  /** A line for stderr (never stdout, which is the protocol's). */
  warn: (text: string) => void;
  /** Aborting it interrupts the turn in flight and runs no further turns. */
  signal?: AbortSignal;
}

/** One turn of the protocol's loop: a message of the program's, or a scheduled prompt waiting for its outcome. */
interface Turn {
  input: SubmitInput;
  done?: (outcome: SubmitOutcome) => void;
}

interface InitializeRequest {
  subtype: 'initialize';
  systemPrompt?: string | string[];
  appendSystemPrompt?: string;
  hooks?: SdkHookRegistrations;
  sdkMcpServers?: string[];
  sdkMcpServerManifests?: Record<string, { toolsListResult?: { tools?: [] } }>;
  /** The SDK's `agents` option: subagents for the task tool, Claude Code's shape. */
  agents?: Record<string, unknown>;
  /** `mcpServersDelivery: 'initialize'` (with `--await-initialize`): the process and remote servers, Claude Code's shape. */
  mcpServers?: Record<string, unknown>;
  /** The SDK's `outputFormat` schema; it also passes it as `--json-schema`, which this repeats. */
  jsonSchema?: Record<string, unknown>;
}

/**
 * Beans as the subprocess of a Claude Agent SDK program (`pathToClaudeCodeExecutable`): JSON lines
 * in and out, one session for the whole process, a turn per user message, control requests both
 * ways. Resolves with the exit code once the input has ended and the last turn is done.
 */
export async function runSdkProtocol(options: SdkProtocolOptions): Promise<number> {
  const writeJson = (message: unknown) => options.write(JSON.stringify(message));
  const channel = new ControlChannel(writeJson);
  // The program's messages and the session's scheduled prompts, one turn after the other.
  const turns = new AsyncQueue<Turn>();
  let inputEnded = false;
  let agent: Promise<AgentSession> | undefined;
  let mapper: SdkMessageMapper | undefined;
  // The program's in-process MCP servers, named at initialize.
  const sdkServers = new Set<string>();

  // --await-initialize: the program's MCP servers come in its initialize request, so the session waits for it.
  let initialized = (): void => undefined;
  const initializing = new Promise<void>((resolve) => (initialized = resolve));
  const start = (init?: InitializeRequest): Promise<AgentSession> =>
    (agent ??= (async () => {
      const session: AgentSession = await createAgentSession(sessionOptions(options, init, channel, () => session));
      for (const warning of session.warnings) options.warn(`warning: ${warning}`);
      // SDK programs are written against Claude Code's tools: every message they read names them so.
      mapper = new SdkMessageMapper({
        sessionId: session.session.id,
        includePartialMessages: options.includePartialMessages,
        modelLimits: (model) => modelLimits(session.providerId, model),
        toolNames: 'claude',
        workspaceRoot: session.workspace.root,
      });
      session.session.subscribe((event) => {
        for (const message of mapper!.event(event)) writeJson(message);
      });
      watchBackgroundTasks(session.backgroundTasks, () => session.session.id, writeJson);
      // Loops and cron tasks (CronCreate, ScheduleWakeup, /loop) and a /goal run while the program
      // keeps its input open: each run waits for the turn going on and is a turn of its own, with
      // its init and result like one the program sent.
      const scheduled = (input: SubmitInput) =>
        new Promise<SubmitOutcome>((resolve) => {
          if (inputEnded) resolve({ kind: 'refused', reason: 'The SDK program closed its input.' });
          else turns.push({ input, done: resolve });
        });
      session.schedules.connect(scheduled);
      session.goals.connect(scheduled);
      session.schedules.start();
      return session;
    })());
  const ready = (): Promise<AgentSession> => (options.awaitInitialize ? initializing.then(() => start()) : start());

  const handleRequest = async (message: ControlRequest) => {
    const { request_id: id, request } = message;
    try {
      switch (request.subtype) {
        case 'initialize': {
          for (const name of (request as InitializeRequest).sdkMcpServers ?? []) sdkServers.add(name);
          const init = request as InitializeRequest;
          const starting = start(init);
          initialized();
          return channel.respond(id, { ...initializeResponse(await starting), ...appliedFields(init) });
        }
        case 'interrupt':
          (await ready()).session.abort();
          return channel.respond(id);
        case 'set_permission_mode': {
          const session = await ready();
          session.permissionMode = parsePermissionMode(String(request.mode));
          channel.respond(id);
          return writeJson({
            type: 'system',
            subtype: 'status',
            status: null,
            permissionMode: sdkPermissionMode(session.permissionMode),
            uuid: randomUuid(),
            session_id: session.session.id,
          });
        }
        case 'set_model': {
          const session = await ready();
          if (typeof request.model === 'string' && request.model) session.session.setModel(request.model);
          return channel.respond(id);
        }
        case 'set_max_thinking_tokens': {
          // Claude Code's: a budget, 0 for off, null for the default.
          const session = await ready();
          const budget = request.max_thinking_tokens;
          session.session.thinking = typeof budget === 'number' && Number.isInteger(budget) && budget >= 0 ? (budget === 0 ? 'off' : budget) : undefined;
          return channel.respond(id);
        }
        case 'stop_task': {
          // Query.stopTask(): a background command or subagent; its task_notification says stopped.
          const session = await ready();
          const taskId = typeof request.task_id === 'string' ? request.task_id : '';
          if (!session.backgroundTasks.get(taskId)) return channel.respondError(id, `There is no background task "${taskId}".`);
          await session.backgroundTasks.kill(taskId);
          return channel.respond(id);
        }
        case 'rewind_files': {
          const session = await ready();
          return channel.respond(id, {
            ...(await rewindFilesResult(
              session.checkpoints,
              typeof request.user_message_id === 'string' ? request.user_message_id : '',
              request.dry_run === true,
            )),
          });
        }
        default:
          if (MCP_CONTROL_SUBTYPES.has(request.subtype)) return channel.respond(id, await answerMcpControl(await ready(), request, sdkServers));
          return channel.respondError(id, `Beans does not support the control request "${request.subtype}".`);
      }
    } catch (error) {
      channel.respondError(id, error instanceof Error ? error.message : String(error));
    }
  };

  const reader = (async () => {
    for await (const line of options.lines) {
      if (!line.trim()) continue;
      let message: { type?: string };
      try {
        message = JSON.parse(line) as { type?: string };
      } catch {
        options.warn(`ignored a line of input that is not JSON: ${line.slice(0, 80)}`);
        continue;
      }
      if (message.type === 'control_request') void handleRequest(message as ControlRequest);
      else if (message.type === 'control_response') channel.handleResponse(message as ControlResponse);
      else if (message.type === 'user') {
        const prompt = fromSdkUser(message as SdkUserInput);
        if (prompt) turns.push({ input: prompt });
      }
    }
    // Nobody will answer any more: waiting permission questions and hooks fail, and no new turn comes.
    initialized();
    channel.close('The SDK program closed its input.');
    inputEnded = true;
    turns.end();
  })();

  const onAbort = () => {
    turns.end();
    void agent?.then(
      (session) => session.session.abort(),
      () => undefined,
    );
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  for await (const turn of turns.drain()) {
    if (options.signal?.aborted) {
      turn.done?.({ kind: 'stopped' });
      break;
    }
    let session: AgentSession;
    try {
      session = await ready();
    } catch (error) {
      // Settings, keys, an unknown provider: the program still gets a result it can read.
      const message = error instanceof Error ? error.message : String(error);
      writeJson(startupFailureResult(message));
      options.warn(message);
      channel.close(message);
      return error instanceof BeansError ? error.exitCode : 1;
    }
    writeJson(mapper!.init(session.initInfo()));
    const started = Date.now();
    const outcome = await session.submit(turn.input);
    writeJson(mapper!.result(submitSummary(outcome, Date.now() - started)));
    turn.done?.(outcome);
  }
  inputEnded = true;
  options.signal?.removeEventListener('abort', onAbort);
  if (!options.signal?.aborted) await reader;
  await agent?.then(
    (session) => session.close(),
    () => undefined,
  );
  return 0;
}

function sessionOptions(
  options: SdkProtocolOptions,
  init: InitializeRequest | undefined,
  channel: ControlChannel,
  self: () => AgentSession,
): AgentSessionOptions {
  // A session as long as the program's: its loops and cron tasks run (runSdkProtocol hosts them).
  const session = { ...options.session, hostsSchedules: true };
  // As Claude Code: the SDK's enableFileCheckpointing (this variable) turns checkpoints on for its sessions.
  const env = session.env ?? process.env;
  const checkpointing = /^(1|true)$/i.test(env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING ?? '');
  session.flags = { ...session.flags, 'checkpoints.enabled': checkpointing };
  // The SDK sends [""] when its caller set no system prompt: Beans' own profile then.
  const systemPrompt = Array.isArray(init?.systemPrompt) ? init.systemPrompt.join('\n') : init?.systemPrompt;
  if (systemPrompt?.trim()) session.systemPrompt = systemPrompt;
  if (init?.appendSystemPrompt) session.appendSystemPrompt = init.appendSystemPrompt;
  if (init?.jsonSchema && typeof init.jsonSchema === 'object' && !session.outputFormat) session.outputFormat = { type: 'json_schema', schema: init.jsonSchema };
  const workspace = () => self().workspace.root;
  if (options.permissionPromptTool === 'stdio') session.canUseTool = askProgram(channel, workspace);
  // Every hook event Beans has runs the program's callbacks; the others are named once.
  if (init?.hooks) {
    const { hooks, notRun } = sdkProgramHooks(init.hooks, channel);
    session.hooks = hooks;
    if (notRun.length > 0)
      options.warn(
        `warning: the program's ${notRun.join(', ')} hook callbacks are not run by Beans; ${Object.keys(hooks).join(', ') || 'the other events'} are.`,
      );
  }
  if (init?.agents && typeof init.agents === 'object')
    session.agents = { ...(session.agents === undefined ? {} : parseInlineAgents(session.agents)), ...parseInlineAgents(init.agents) };
  if (init?.mcpServers && typeof init.mcpServers === 'object') session.mcpServers = { ...session.mcpServers, ...init.mcpServers };
  if (init?.sdkMcpServers?.length) session.inProcessMcpServers = sdkMcpServers(init.sdkMcpServers, init.sdkMcpServerManifests, channel);
  return session;
}

/** `can_use_tool` in Claude Code's vocabulary: `Write` with `file_path`, `Bash` with `command`. */
function askProgram(channel: ControlChannel, workspaceRoot: () => string): CanUseTool {
  return async (toolName, input, { signal, toolUseID }) => {
    let answer: Record<string, unknown>;
    try {
      answer = await channel.request(
        {
          subtype: 'can_use_tool',
          tool_name: claudeToolName(toolName),
          input: toClaudeInput(toolName, input, workspaceRoot()),
          tool_use_id: toolUseID,
          permission_suggestions: [],
        },
        signal,
      );
    } catch (error) {
      return { behavior: 'deny', message: `The SDK program could not be asked: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (answer.behavior === 'allow') {
      const updated =
        answer.updatedInput && typeof answer.updatedInput === 'object'
          ? fromClaudeInput(beansToolNameOf(claudeToolName(toolName)), answer.updatedInput as Record<string, unknown>)
          : undefined;
      return { behavior: 'allow', ...(updated ? { updatedInput: updated } : {}) };
    }
    return {
      behavior: 'deny',
      message: typeof answer.message === 'string' && answer.message ? answer.message : 'The SDK program denied it.',
      ...(answer.interrupt === true ? { interrupt: true } : {}),
    };
  };
}

/**
 * What the SDK checks in the initialize response before it sends a prompt: servers sent with
 * mcpServersDelivery 'initialize' were read (it ends the session when the field is missing, as for a
 * Claude Code too old to read them), and whether every hook it registered will run.
 */
function appliedFields(init: InitializeRequest): Record<string, unknown> {
  return {
    ...(init.mcpServers !== undefined ? { mcp_servers_applied: true } : {}),
    ...(init.hooks ? { hooks_applied: sdkHooksNotRun(init.hooks).length === 0 } : {}),
  };
}

function initializeResponse(session: AgentSession): Record<string, unknown> {
  const info = session.initInfo();
  return {
    commands: session.catalog.commands().map((command) => ({ name: command.name, description: command.description, argumentHint: command.argumentHint ?? '' })),
    agents: session.catalog.agents().map((agent) => ({ name: agent.name, description: agent.description })),
    output_style: 'default',
    available_output_styles: ['default'],
    models: [{ value: info.model, displayName: info.model, description: `${info.provider} model` }],
    account: {},
  };
}
