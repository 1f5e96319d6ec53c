import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  collectStream,
  ChatSession,
  ToolRegistry,
  builtinPromptMessage,
  memoryFiles,
  parseSlashInput,
  saveNote,
  createAuthorize,
  permissionHook,
  readFileTool,
  shellTool,
  todoWriteTool,
  writeFileTool,
  grepTool,
  globTool,
  listDirectoryTool,
  editFileTool,
  type AgentMessage,
  type AnyTool,
  type ChatRequest,
  type LLMClient,
  type ModelInfo,
  attachFileReferences,
  createSubmit,
  type PermissionMode,
  type ToolRule,
  parseToolRules,
  type ProviderFailure,
  type StreamEvent,
  type ToolCall,
} from '@beans/core';
import type { AskAnswer, ChatAgent, PermissionAsker, SessionListing, SlashCommandInfo } from '../../src/chat-agent.js';
import { pasteClipboardImage } from '../../src/clipboard-image.js';

/** One scripted model answer. */
interface Turn {
  /** Text streamed in these pieces. */
  chunks?: string[];
  chunkDelayMs?: number;
  toolCalls?: Omit<ToolCall, 'id'>[];
  fail?: { kind: ProviderFailure['kind']; message: string; status?: number };
  /** Announce a retry before answering. */
  retry?: { delayMs: number; status: number };
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number };
}

export interface FakeHostOptions {
  /** Turn N answers the N-th request; the last one repeats. */
  turns: Turn[];
  commands?: SlashCommandInfo[];
  paths?: string[];
  sessions?: SessionListing[];
  /** Stored prompts Ctrl+R finds (newest first). */
  promptHistory?: string[];
  /** The `statusLine` setting's command (run for real, in the temporary workspace). */
  statusLineCommand?: string;
  /** The prompts of stored sessions by id (the resume picker's search and preview). */
  sessionPrompts?: Record<string, string[]>;
  /** Sessions of other workspaces, listed only when every workspace is asked for. */
  otherSessions?: SessionListing[];
  history?: AgentMessage[];
  contextWindow?: number;
  agents?: { name: string; description: string }[];
  /** More real tools for the model (e.g. web_fetch against a local server). */
  extraTools?: AnyTool[];
  permissionMode?: PermissionMode;
  display?: Partial<ChatAgent['display']>;
  startupNotices?: ChatAgent['startupNotices'];
  /** Allow rules from "settings" (shown by /permissions). */
  allow?: string[];
  /** The environment Ctrl+V reads the clipboard with (a fake xclip on PATH, DISPLAY); none by default. */
  clipboardEnv?: NodeJS.ProcessEnv;
  /** How long preparing a prompt takes (a slow command expansion or file attachment). */
  prepareDelayMs?: number;
}

/**
 * A ChatAgent backed by a real ChatSession, real tools on a temporary workspace and the real
 * permission policy; only the model is scripted (no HTTP). It records every request.
 */
export function createFakeHost(options: FakeHostOptions) {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'beans-ui-')));
  const workspace = { root, cwd: root, isGit: false };
  const requests: ChatRequest[] = [];
  const prompts: string[] = [];
  let callCounter = 0;

  const client: LLMClient = {
    provider: 'fake',
    resolveModel: async () => ({ model: 'fake-model' }),
    listModels: async (): Promise<ModelInfo[]> => [
      { name: 'fake-model', provider: 'fake', contextWindow: 8000 },
      { name: 'fake-large', provider: 'fake', contextWindow: 128000 },
    ],
    // One-off requests (/btw, /compact) are the same script, collected.
    chat: (request) => collectStream(client.chatStream(request)),
    async *chatStream(request: ChatRequest): AsyncIterable<StreamEvent> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const turn = options.turns[Math.min(requests.length - 1, options.turns.length - 1)]!;
      const usage = turn.usage ?? { inputTokens: 1200, outputTokens: 300 };
      if (turn.retry) {
        yield {
          type: 'retry',
          attempt: 1,
          delayMs: turn.retry.delayMs,
          failure: { kind: 'rate_limit', message: 'slow down', status: turn.retry.status, retryable: true },
        };
        await sleep(turn.retry.delayMs, request.signal);
      }
      let text = '';
      for (const chunk of turn.chunks ?? []) {
        if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs, request.signal);
        if (request.signal?.aborted) break;
        text += chunk;
        yield { type: 'text_delta', text: chunk };
      }
      if (request.signal?.aborted) {
        yield { type: 'error', stopReason: 'aborted', failure: { kind: 'aborted', message: 'Aborted.', retryable: false }, text, toolCalls: [], usage };
        return;
      }
      if (turn.fail) {
        yield { type: 'error', stopReason: 'error', failure: { ...turn.fail, retryable: false }, text, toolCalls: [], usage };
        return;
      }
      const toolCalls = (turn.toolCalls ?? []).map((call) => ({ ...call, id: `call_${++callCounter}` }));
      for (const call of toolCalls) yield { type: 'tool_call', call };
      yield { type: 'done', stopReason: toolCalls.length ? 'tool_use' : 'stop', text, toolCalls, usage };
    },
  };

  let asker: PermissionAsker | undefined;
  let mode: PermissionMode = options.permissionMode ?? 'default';
  const approved: ToolRule[] = [];
  const allow = parseToolRules(options.allow ?? []);
  const authorize = createAuthorize({
    mode: () => mode,
    approved,
    allow,
    workspace,
    ask: (request, signal) => (asker ? asker(request, signal) : Promise.resolve<AskAnswer>({ decision: 'deny', reason: 'no asker' })),
  });
  const tools = new ToolRegistry([
    readFileTool,
    writeFileTool,
    editFileTool,
    shellTool,
    todoWriteTool,
    grepTool,
    globTool,
    listDirectoryTool,
    ...(options.extraTools ?? []),
  ]);
  // Where the shell saves an output it had to cut (Ctrl+O reads it back).
  const outputDir = path.join(root, '.beans-output');
  const makeSession = (messages?: AgentMessage[]) =>
    new ChatSession({
      client,
      provider: 'fake',
      model: 'fake-model',
      systemPrompt: 'You are a test.',
      tools,
      workspace,
      beforeToolCall: permissionHook(authorize),
      messages,
      toolContext: { outputDir },
    });

  let session = makeSession(options.history);
  const listeners = new Set<(session: ChatSession) => void>();
  const replace = (next: ChatSession) => {
    session.abort();
    session = next;
    for (const listener of listeners) listener(next);
  };
  const calls: string[] = [];
  const mcpDocs = { enabled: true };
  const memoryPlaces = { workspaceRoot: root, configDir: path.join(root, '.user-config') };

  const host: ChatAgent = {
    get session() {
      return session;
    },
    onSessionChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    header: { profile: 'default', profileSource: 'built-in default', provider: 'fake', workspace: root },
    slashCommands: () =>
      options.commands ?? [
        { name: 'review', description: 'review a pull request', argumentHint: '<number>', source: 'command' },
        { name: 'deploy-checklist', description: 'the deploy checklist', source: 'skill' },
      ],
    display: { theme: 'dark', markdown: true, showCost: true, debug: false, ...options.display },
    startupNotices: options.startupNotices ?? [],
    workspaceTrusted: false,
    settingsFiles: [path.join(root, '.beans', 'settings.json')],
    configEntries: () => [
      { key: 'provider', value: 'fake', source: 'flag' },
      { key: 'ui.theme', value: 'dark', source: 'default' },
    ],
    async saveUserSetting(key, value) {
      calls.push(`save:${key}=${value}`);
      return path.join(root, 'home', 'settings.json');
    },
    runUserShell: (command, signal) => shellTool.execute({ command }, { signal, workspace, state: session.toolState, outputDir }),
    get permissionMode() {
      return mode;
    },
    set permissionMode(next) {
      mode = next;
    },
    permissionRules: () => ({
      allow: allow.map((rule) => ({ rule: rule.source, source: '/home/me/.config/beans/settings.json' })),
      deny: [],
      approved: approved.map((rule) => rule.source),
      readOnlyCommands: { enabled: true, source: 'default' },
    }),
    removeApprovals(rule) {
      const kept = approved.filter((entry) => rule !== undefined && entry.source !== rule);
      const removed = approved.length - kept.length;
      approved.splice(0, approved.length, ...kept);
      return removed;
    },
    setAsker(next) {
      asker = next;
    },
    listHooks: () => [{ event: 'PreToolUse', matcher: 'Bash', command: 'guard.sh', source: 'user settings' }],
    lspServers: () => [
      { name: 'typescript', origin: 'plugin typescript-lsp', state: 'running', languages: ['typescript', 'typescriptreact'], pid: 4242, restarts: 1 },
    ],
    mcpServers: () => [mcpDocs.enabled ? { name: 'docs', status: 'connected', tools: ['mcp__docs__search'] } : { name: 'docs', status: 'disabled', tools: [] }],
    async toggleMcpServer(name, enabled) {
      calls.push(`mcp:${enabled ? 'enable' : 'disable'}:${name}`);
      mcpDocs.enabled = enabled;
    },
    async reconnectMcpServer(name) {
      calls.push(`mcp:reconnect:${name}`);
    },
    listPlugins: async () => [{ name: 'review-kit', version: '1.2.0', from: 'team: ./plugins/review-kit', contents: '2 agents, 1 command' }],
    notify: async (message) => void calls.push(`notify:${message}`),
    // The chat's one way in is core's real submit path, over this fake's preparation and model.
    submit: createSubmit({
      live: {
        get session() {
          return session;
        },
        notices: () => undefined,
      },
      async preparePrompt(text) {
        prompts.push(text);
        if (options.prepareDelayMs) await sleep(options.prepareDelayMs);
        if (text === 'crash the host') throw new Error('kaboom in the host');
        const slash = parseSlashInput(text);
        const builtin = slash && builtinPromptMessage(slash.name, slash.args);
        if (builtin) return { messages: [builtin] };
        if (text.startsWith('/review')) {
          const args = text.slice('/review'.length).trim();
          return { messages: [{ role: 'user', content: `Review pull request ${args} carefully.`, origin: 'command', display: text, timestamp: Date.now() }] };
        }
        if (text.startsWith('/')) return { error: `Unknown command ${text.split(' ')[0]}. Type /help to see the commands.` };
        return { messages: [{ role: 'user', content: text, origin: 'prompt', timestamp: Date.now() }] };
      },
      attachFiles: (message) => attachFileReferences(message, root),
      async runTurn(messages, signal) {
        const result = await session.prompt(messages, signal);
        return { result, answer: result.finalText, notices: [] };
      },
      runUserShell: (command, signal) => shellTool.execute({ command }, { signal, workspace, state: session.toolState, outputDir }),
      commands: () => [],
      guardrails: { input: [], output: [], redactsToolResults: false },
    }),
    pasteImage: () => pasteClipboardImage(options.clipboardEnv ?? {}, path.join(root, '..', `clipboard-${path.basename(root)}`)),
    describeProfile: () => 'Profile: default\nChosen because: no other profile was configured.',
    listAgents: () => options.agents ?? [{ name: 'code:reviewer', description: 'Reviews code' }],
    async switchAgent(name) {
      calls.push(`agent:${name}`);
    },
    subagentTranscript: () => undefined,
    listSkills: () => [{ name: 'deploy-checklist', description: 'the deploy checklist' }],
    listModels: (signal) => session.client.listModels(signal),
    async switchModel(name) {
      session.model = name;
      return `Model switched to ${name}.`;
    },
    listSessions: async (scope) => (scope === 'everywhere' ? [...(options.sessions ?? []), ...(options.otherSessions ?? [])] : (options.sessions ?? [])),
    sessionPrompts: async (id: string) => options.sessionPrompts?.[id] ?? [],
    renameSession: (title: string) => void calls.push(`rename:${title}`),
    ...(options.statusLineCommand ? { statusLine: { command: options.statusLineCommand, padding: 0, cwd: root, env: process.env } } : {}),
    transcriptPath: () => '',
    promptHistory: async () => options.promptHistory ?? [],
    async resumeSession(id) {
      calls.push(`resume:${id}`);
      replace(
        makeSession([
          { role: 'user', content: `hello from ${id}`, origin: 'prompt', timestamp: 1 },
          { role: 'assistant', content: 'An **old** answer.', toolCalls: [], timestamp: 2 },
        ]),
      );
    },
    async newConversation() {
      calls.push('clear');
      replace(makeSession());
      return session;
    },
    async compact(signal) {
      calls.push('compact');
      await sleep(50, signal);
      if (signal.aborted) throw new Error('aborted');
      return 'Compacted 4 turns into a summary.';
    },
    async completePath(prefix) {
      return (options.paths ?? []).filter((file) => file.startsWith(prefix));
    },
    contextWindow: () => options.contextWindow,
    lookUpContextWindow: () => undefined,
    startMcpServers: () => undefined,
    // The real memory files, in the temporary workspace and a user folder inside it.
    memoryFiles: () => memoryFiles(memoryPlaces),
    saveMemoryNote: (target, text) => saveNote(target, text, memoryPlaces),
    async editFile(file) {
      calls.push(`edit:${file}`);
      return `Edited ${file}.`;
    },
  };

  return {
    host,
    requests,
    prompts,
    calls,
    root,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
