import { readFileSync } from 'node:fs';
import {
  UsageError,
  parseOutputSchema,
  type OutputSchema,
  clientFor as coreClientFor,
  createAgentSession,
  loadCatalog as coreLoadCatalog,
  loadRuntimeBase,
  providerIdOf as coreProviderIdOf,
  sessionStore as coreSessionStore,
  type AgentSession,
  type AgentSessionOptions,
  type LLMClient,
  type PluginCatalog,
  type RuntimeBase,
  type SessionStore,
} from '@beans/core';
import { configFlags, type CliOptions } from './options.js';

export type Base = RuntimeBase;

/** Workspace and configuration: what every command needs. Warnings go to stderr once. */
export async function loadBase(options: CliOptions): Promise<Base> {
  const base = await loadRuntimeBase({ flags: configFlags(options), trusted: options.trust || undefined });
  for (const warning of base.config.warnings) warn(warning);
  return base;
}

export async function loadCatalog(base: Base): Promise<PluginCatalog> {
  return coreLoadCatalog(base);
}

export function sessionStore(base: Base): SessionStore {
  return coreSessionStore(base);
}

export function providerIdOf(base: Base): string {
  return coreProviderIdOf(base);
}

export async function clientFor(base: Base, providerId: string): Promise<LLMClient> {
  return coreClientFor(base, providerId);
}

/** What the command line says about the session, as core's options. */
export function cliSessionOptions(options: CliOptions, mode: 'chat' | 'one-shot'): AgentSessionOptions {
  return {
    flags: configFlags(options),
    agentProfile: options.agentProfile,
    ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    ...(options.fallbackModel !== undefined ? { fallbackModel: options.fallbackModel } : {}),
    ...(options.addDir?.length ? { additionalDirectories: options.addDir } : {}),
    agentDescription: options.agentDescription,
    resume: typeof options.resume === 'string' ? options.resume : undefined,
    continue: options.continue,
    sessionId: options.sessionId,
    ...(options.forkSession ? { forkSession: true } : {}),
    ...(options.resumeSessionAt ? { resumeSessionAt: options.resumeSessionAt } : {}),
    persistSession: options.sessionPersistence !== false,
    keepBackgroundTasks: mode === 'one-shot' && options.keepTasks === true,
    settingSources: options.settingSources,
    trustWorkspace: options.trust,
    mcpConfig: options.mcpConfig,
    strictMcpConfig: options.strictMcpConfig,
    // A person or a script reading text waits less when MCP servers connect while the first request
    // goes out with the tools they offered last time; stream-json readers get connected servers.
    mcpFromLastRun: mode === 'chat' || options.outputFormat !== 'stream-json',
    ...(options.agents !== undefined ? { agents: options.agents } : {}),
    ...(options.jsonSchema !== undefined ? { outputFormat: { type: 'json_schema' as const, schema: outputSchema(options.jsonSchema) } } : {}),
    interactive: mode === 'chat',
    // Hooks' messages for the user: stderr in one-shot (chat shows a turn's notices as notes).
    ...(mode === 'one-shot' ? { onHookMessage: (message: string) => process.stderr.write(`beans: ${message}\n`) } : {}),
  };
}

/**
 * The session every mode runs on, built by core from the command line (plus what a command adds,
 * such as a workflow's tools); its warnings go to stderr (chat shows them in its transcript
 * instead, where a redraw keeps them).
 */
export async function createCliSession(options: CliOptions, mode: 'chat' | 'one-shot', extra: AgentSessionOptions = {}): Promise<AgentSession> {
  const agent = await createAgentSession({ ...cliSessionOptions(options, mode), ...extra });
  if (mode !== 'chat') for (const warning of agent.warnings) warn(warning);
  return agent;
}

/** `--json-schema` as Claude Code takes it: JSON text, or else the path of a file holding it. */
function outputSchema(value: string): OutputSchema {
  try {
    if (value.trim().startsWith('{')) return parseOutputSchema(value, '--json-schema');
    let text: string;
    try {
      text = readFileSync(value, 'utf8');
    } catch {
      throw new Error(`--json-schema: ${value} is neither JSON nor a readable file.`);
    }
    return parseOutputSchema(text, value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function warn(text: string): void {
  process.stderr.write(`beans: warning: ${text}\n`);
}
