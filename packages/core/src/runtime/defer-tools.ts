import { modelLimits, providerDefinition } from '../llm/index.js';
import type { McpServerSet } from '../mcp/mcp-servers.js';
import { DeferredTools, deferredToolsListing } from '../tools/deferred-tools.js';
import type { ToolRegistry } from '../tools/registry.js';
import { toolDeclaration, type AnyTool } from '../tools/tool.js';
import { toolSearchTool } from '../tools/tool-search.js';
import type { BeansConfig } from '../config/index.js';
import { providerIdOf, type RuntimeBase } from './base.js';
import type { Live } from './live.js';
import type { SettledAgent } from './settle-agent.js';

/** `tools.defer`, `tools.deferThreshold`, and the context window the default threshold is a share of. */
export type DeferSettings = Pick<BeansConfig, 'tools' | 'compaction'>;

export interface DeferToolsInput {
  settings: DeferSettings;
  /** The model whose window decides the default threshold. */
  agent: Pick<SettledAgent, 'providerId' | 'model'>;
  /** The first agent's tools (assemble-tools.ts). */
  tools: { tools: ToolRegistry };
  mcp: McpServerSet | undefined;
  /** The loads go to the live conversation's session file. */
  live: Live;
}

export interface ToolDeferral {
  /** Present when MCP tools are deferred: the session agent's registry declares them once loaded. */
  deferred: DeferredTools | undefined;
  /** The system prompt with the deferred tools' names after it (unchanged when none are deferred). */
  withListing(systemPrompt: string): string;
}

/** The most a deferred set may cost by default: 4k tokens, or 5% of a smaller window. */
const DEFAULT_THRESHOLD_TOKENS = 4_000;
const WINDOW_FRACTION = 0.05;
// The same rough measure compaction uses: about 4 characters a token.
const CHARS_PER_TOKEN = 4;

/**
 * Part: MCP tools offered by name only. When their schemas would cost more than `tools.deferThreshold`
 * tokens (`tools.defer`: auto, always, never), they are left out of the session agent's requests, the
 * system prompt lists their names and `tool_search` loads them; the loads are recorded in the session
 * log (meta `tools`) so a resume declares them again.
 */
export function deferMcpTools(input: DeferToolsInput): ToolDeferral {
  const registry = input.tools.tools;
  const deferred = deferRegistryTools(registry, input);
  if (!deferred) return { deferred: undefined, withListing: (prompt) => prompt };
  // A tool a server adds later (list_changed) is deferred too, so the declared prefix never grows.
  let known = new Set(deferred.tools().map((tool) => tool.name));
  input.mcp?.onToolsChanged(() => {
    for (const tool of registry.list().filter(isMcpTool)) if (!known.has(tool.name)) deferred.defer(tool.name);
    known = new Set(
      registry
        .list()
        .filter(isMcpTool)
        .map((tool) => tool.name),
    );
  });
  deferred.onLoad((names) => input.live.log?.recordMeta({ kind: 'tools', loaded: names }));
  const listing = deferredToolsListing(
    deferred.tools().map((tool) => tool.name),
    input.mcp?.statuses(),
  );
  return { deferred, withListing: (prompt) => `${prompt}\n\n${listing}` };
}

/**
 * Defers a registry's MCP tools when they cost more than the threshold: registers `tool_search` and
 * the deferral on it. Subagents' own registries go through here too (their loads are their own).
 */
function deferRegistryTools(registry: ToolRegistry, input: Pick<DeferToolsInput, 'settings' | 'agent'>): DeferredTools | undefined {
  const mcpTools = registry.list().filter(isMcpTool);
  if (!shouldDefer(input, mcpTools)) return undefined;
  const deferred = new DeferredTools(
    mcpTools.map((tool) => tool.name),
    (name) => registry.get(name),
  );
  registry.register(toolSearchTool);
  registry.deferral = deferred;
  return deferred;
}

/** For a subagent's registry: defers its MCP tools if they cost too much; returns the prompt's listing ('' when none). */
export function deferChildTools(registry: ToolRegistry, input: Pick<DeferToolsInput, 'settings' | 'agent' | 'mcp'>): string {
  const deferred = deferRegistryTools(registry, input);
  return deferred
    ? `\n\n${deferredToolsListing(
        deferred.tools().map((tool) => tool.name),
        input.mcp?.statuses(),
      )}`
    : '';
}

/**
 * Whether a new session would offer these MCP tools by name only (`beans mcp list` asks, with no
 * session): the configured provider and model decide the default threshold.
 */
export function mcpToolsWouldDefer(base: RuntimeBase, mcpTools: readonly AnyTool[]): boolean {
  const providerId = providerIdOf(base);
  const { model, models } = base.config.values;
  return shouldDefer(
    { settings: base.config.values, agent: { providerId, model: model ?? models[providerId] ?? providerDefinition(providerId)?.defaultModel ?? '' } },
    mcpTools.filter(isMcpTool),
  );
}

function isMcpTool(tool: AnyTool): boolean {
  return tool.name.startsWith('mcp__');
}

function shouldDefer(input: Pick<DeferToolsInput, 'settings' | 'agent'>, mcpTools: readonly AnyTool[]): boolean {
  const settings = input.settings.tools;
  if (mcpTools.length === 0 || settings.defer === 'never') return false;
  if (settings.defer === 'always') return true;
  const tokens = mcpTools.reduce((sum, tool) => sum + JSON.stringify(toolDeclaration(tool)).length, 0) / CHARS_PER_TOKEN;
  return tokens > deferThreshold(input);
}

/** `tools.deferThreshold`, or 4k tokens or 5% of the model's window, whichever is smaller. */
function deferThreshold(input: Pick<DeferToolsInput, 'settings' | 'agent'>): number {
  const values = input.settings;
  if (values.tools.deferThreshold !== undefined) return values.tools.deferThreshold;
  const window = modelLimits(input.agent.providerId, input.agent.model).contextWindow ?? values.compaction.contextWindow;
  return window ? Math.min(DEFAULT_THRESHOLD_TOKENS, window * WINDOW_FRACTION) : DEFAULT_THRESHOLD_TOKENS;
}
