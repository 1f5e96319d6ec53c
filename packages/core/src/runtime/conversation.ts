import { UsageError } from '../errors.js';
import { parseThinking } from '../llm/thinking.js';
import { randomUuid } from '../random-ids.js';
import { ChatSession, type ChatSessionOptions } from '../agent/chat-session.js';
import type { AgentMessage } from '../agent/types.js';
import type { BeansConfig } from '../config/index.js';
import { gateFinalAnswer } from '../hooks/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import { repairHistory, type SessionMetaInput, type SessionStore, type SessionWriter, type SubagentTranscript } from '../session/index.js';
import type { Workspace } from '../workspace/workspace.js';
import type { SessionTools } from './assemble-tools.js';
import { autoCompaction } from './auto-compact.js';
import type { Compaction } from './compaction-hooks.js';
import type { ConversationLog } from './conversation-logs.js';
import type { Live } from './live.js';
import type { PermissionChain } from './permission-chain.js';
import type { SessionHooks } from './session-hooks.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SessionStorage } from './session-storage.js';
import type { SettledAgent } from './settle-agent.js';
import type { SystemPrompt } from './system-prompt.js';
import type { Telemetry } from '../telemetry/index.js';
import type { SessionToolContext } from './tool-context.js';

export interface ConversationFactoryInput {
  /** The conversation's limits (turns, budget, thinking, loop detection), compaction, SOP, and a model named in settings. */
  settings: Pick<BeansConfig, 'sop' | 'model' | 'maxTurns' | 'maxBudgetUsd' | 'thinking' | 'loopDetection' | 'compaction'>;
  workspace: Workspace;
  /** A model named by the program, the new session's id, the program's view of the context, and its durable steps (a runner's). */
  options: Pick<AgentSessionOptions, 'model' | 'sessionId' | 'transformContext' | 'convertToLlm' | 'durableSteps'>;
  agent: Pick<SettledAgent, 'providerId' | 'client' | 'guardrails' | 'model'>;
  /** The first agent's system prompt. */
  systemPrompt: Pick<SystemPrompt, 'text'>;
  tools: Pick<SessionTools, 'tools'>;
  hooks: Pick<SessionHooks, 'afterToolCall'>;
  permissions: Pick<PermissionChain, 'newCheck' | 'adopt' | 'isReadOnlyCommand'>;
  storage: Pick<SessionStorage, 'store' | 'outputDirOf'>;
  /** What its tools run with (it adds its own outputs folder). */
  toolContext: SessionToolContext;
  compaction: Compaction;
  mcp: McpServerSet | undefined;
  /** When on: every conversation's events become spans, metrics and log events. */
  telemetry: Telemetry | undefined;
  /** Where each conversation's log is kept. */
  live: Pick<Live, 'logs'>;
}

/** A conversation just opened, and what loading a stored one found to warn about (lines it repaired). */
export interface OpenedConversation {
  session: ChatSession;
  warnings: string[];
}

/**
 * Opens a conversation: a fresh one, or a stored one by id (`resumeId`), on `model` (default: the
 * settled one). `how.fork`: the stored conversation continues under a new id (`options.sessionId`, else
 * a fresh one) and its file is left as it was; `how.at`: it continues after that message's uuid.
 */
export type ConversationFactory = (resumeId?: string, model?: string, how?: ResumeHow) => Promise<OpenedConversation>;

interface ResumeHow {
  fork?: boolean;
  at?: string;
}

/**
 * Part: how a conversation is opened, the first one and every one after /clear and /resume: its
 * history and session file, its own permission check, compaction, and what it records.
 */
export function createConversationFactory(input: ConversationFactoryInput): ConversationFactory {
  const { settings: values, workspace, options, agent, storage, permissions, compaction, mcp } = input;
  const { store } = storage;
  const { providerId, client, guardrails } = agent;
  return async (resumeId, sessionModel = agent.model, how = {}) => {
    const warnings: string[] = [];
    const opened =
      resumeId && store
        ? openStored(store, resumeId, how, { options, values, providerId, tools: input.tools, warnings })
        : { history: [], carried: [], children: new Map<string, SubagentTranscript>(), id: options.sessionId ?? store?.newId() ?? randomUuid() };
    const { history, carried, id, children, agentName, modeName } = opened;
    let writer = opened.writer;
    const sop = opened.sop ?? values.sop;
    if (opened.model) sessionModel = opened.model;
    // Changes made before the first message wait for it: a session file is only made for a conversation.
    const pendingChanges: SessionMetaInput[] = [];
    const openWriter = (session: ChatSession) => {
      if (!writer && store) {
        writer = store.create({ id: session.id, cwd: workspace.cwd, workspaceRoot: workspace.root, provider: providerId, model: session.model });
        for (const message of carried.splice(0)) writer.append(message);
        for (const change of pendingChanges.splice(0)) writer.appendMeta(change);
      }
      return writer;
    };
    const check = permissions.newCheck();
    const session: ChatSession = new ChatSession({
      id,
      client,
      provider: providerId,
      model: sessionModel,
      systemPrompt: input.systemPrompt.text,
      sop,
      tools: input.tools.tools,
      workspace,
      beforeToolCall: check.beforeToolCall,
      isReadOnlyCommand: permissions.isReadOnlyCommand,
      afterToolCall: input.hooks.afterToolCall,
      toolContext: { ...input.toolContext, outputDir: storage.outputDirOf(id) },
      maxTurns: values.maxTurns,
      ...(parseThinking(values.thinking) !== undefined ? { thinking: parseThinking(values.thinking) } : {}),
      maxBudgetUsd: values.maxBudgetUsd,
      loopDetection: values.loopDetection.enabled ? { maxRepeats: values.loopDetection.maxRepeats } : false,
      ...(options.durableSteps ? { steps: options.durableSteps } : {}),
      // With compaction off, the same part still keeps every request within the window.
      transformContext: withCallerContext(
        autoCompaction(
          () => session,
          { threshold: values.compaction.threshold, contextWindow: values.compaction.contextWindow, enabled: values.compaction.enabled },
          compaction.contextWindowOf,
          { before: (signal) => compaction.before(signal, 'auto'), after: (signal) => compaction.after(signal) },
        ),
        options.transformContext,
      ),
      ...(options.convertToLlm ? { convertToLlm: options.convertToLlm } : {}),
      messages: history,
      // The file is created with the first message, so opening and closing chat leaves no empty session.
      // A final answer is saved as output guardrails let it be printed (redacted or replaced).
      record: (message) =>
        openWriter(session)?.append(
          message.role === 'assistant' && message.toolCalls.length === 0 && message.content
            ? { ...message, content: gateFinalAnswer(message.content, guardrails).text }
            : message,
        ),
      onClose: () => writer?.close(),
      recordChange: (change) => (writer ? writer.appendMeta(change) : pendingChanges.push(change)),
    });
    permissions.adopt(session, check);
    const log: ConversationLog = {
      subagents: children,
      runStartCostUsd: 0,
      restoredAgent: agentName,
      restoredMode: modeName,
      recordMeta: (change) => (writer ? writer.appendMeta(change) : pendingChanges.push(change)),
      recordSubagent: (toolCallId, agentName, message) => {
        let transcript = children.get(toolCallId);
        if (!transcript) children.set(toolCallId, (transcript = { agent: agentName, messages: [] }));
        transcript.messages.push(message);
        openWriter(session)?.appendSubagent(toolCallId, agentName, message);
      },
    };
    input.live.logs.set(session, log);
    input.telemetry?.observe(session);
    // The budget and the tool quotas are per run: what the session had spent when this run began.
    session.subscribe((event) => {
      if (event.type !== 'agent_start') return;
      log.runStartCostUsd = session.usage.costUsd;
      check.startRun();
    });
    startRememberedMcpOnAnswer(session, mcp);
    return { session, warnings };
  };
}

/** What a conversation starts from: nothing (a new one), or a stored session (a resume or a fork). */
interface Opened {
  history: AgentMessage[];
  /** A fork's copy of the conversation, written to its own file with its first message. */
  carried: AgentMessage[];
  id: string;
  writer?: SessionWriter;
  sop?: string;
  model?: string;
  children: Map<string, SubagentTranscript>;
  agentName?: string;
  modeName?: string;
}

/**
 * A stored session as the conversation resumes it: its history (up to `how.at`), its file opened
 * again, or under a new id for a fork; its own model and SOP unless this run names a model itself.
 */
function openStored(
  store: SessionStore,
  resumeId: string,
  how: ResumeHow,
  context: {
    options: ConversationFactoryInput['options'];
    values: ConversationFactoryInput['settings'];
    providerId: string;
    tools: ConversationFactoryInput['tools'];
    warnings: string[];
  },
): Opened {
  const { options, values } = context;
  const loaded = store.load(resumeId);
  context.warnings.push(...loaded.warnings);
  const history = repairHistory(how.at ? upTo(loaded.messages, how.at, loaded.header.id) : loaded.messages);
  // Tools the model loaded before stay loaded (declared again, in the same order).
  for (const entry of loaded.meta) if (entry.kind === 'tools') context.tools.tools.deferral?.load(entry.loaded, true);
  const common = {
    history,
    children: loaded.subagents,
    agentName: loaded.meta.findLast((entry) => entry.kind === 'agent')?.agent,
    modeName: loaded.meta.findLast((entry) => entry.kind === 'mode')?.mode,
    ...(loaded.sop !== undefined ? { sop: loaded.sop } : {}),
    ...(loaded.model && loaded.provider === context.providerId && !options.model && !values.model ? { model: loaded.model } : {}),
  };
  if (how.fork) return { ...common, carried: history, id: options.sessionId ?? store.newId() };
  const writer = store.open(loaded.header.id);
  if (how.at) writer.appendMeta({ kind: 'resume_at', uuid: how.at });
  return { ...common, carried: [], id: loaded.header.id, writer };
}

/** The conversation up to and including the message `uuid` (the SDK's resumeSessionAt). */
function upTo(messages: readonly AgentMessage[], uuid: string, sessionId: string): AgentMessage[] {
  const at = messages.findLastIndex((message) => 'uuid' in message && message.uuid === uuid);
  if (at < 0) throw new UsageError(`Session ${sessionId} has no message ${uuid} to resume at.`);
  return messages.slice(0, at + 1);
}

type TransformContext = NonNullable<ChatSessionOptions['transformContext']>;

/** The caller's `transformContext` runs on what Beans' compaction left, so it never sees more than fits. */
function withCallerContext(compact: TransformContext, caller: AgentSessionOptions['transformContext']): TransformContext {
  if (!caller) return compact;
  return async (messages, signal, spend) => caller(await compact(messages, signal, spend), signal);
}

/**
 * MCP servers offered from memory start once the model answers, off the way to the first request;
 * a call to one of their tools starts it sooner.
 */
function startRememberedMcpOnAnswer(session: ChatSession, mcp: McpServerSet | undefined): void {
  if (!mcp) return;
  // Once is enough: the listener would otherwise run for every streamed piece of every answer.
  const stop = session.subscribe((event) => {
    const answered = event.type === 'message_update' || event.type === 'retry' || (event.type === 'message_end' && event.message.role === 'assistant');
    if (!answered) return;
    mcp.startRemembered();
    stop();
  });
}
