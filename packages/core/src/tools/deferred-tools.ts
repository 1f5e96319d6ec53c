import type { AnyTool, DeferredToolSearch } from './tool.js';

/** The name of the tool that loads deferred tools (Claude Code's `ToolSearch`). */
export const TOOL_SEARCH = 'tool_search';

/**
 * The tools of a registry that are offered by name only: their schemas are left out of requests
 * until the model loads them with `tool_search`. Loaded tools stay loaded for the session and are
 * declared after every other tool, in the order they were loaded, so that what a request declared
 * before a load is byte-identical in the request after it (the provider's prompt cache keeps it).
 */
export class DeferredTools implements DeferredToolSearch {
  private readonly names: Set<string>;
  private readonly loadedNames: string[] = [];
  private readonly listeners: ((names: string[]) => void)[] = [];

  /** `lookup` finds a tool by name in the live registry (MCP servers' tools change on list_changed). */
  constructor(
    names: Iterable<string>,
    private readonly lookup: (name: string) => AnyTool | undefined,
  ) {
    this.names = new Set(names);
  }

  /** Deferred, loaded or not. */
  isDeferred(name: string): boolean {
    return this.names.has(name);
  }

  /** Deferred and not loaded yet: the model has not seen its schema, so a call to it is refused. */
  isPending(name: string): boolean {
    return this.names.has(name) && !this.loadedNames.includes(name);
  }

  /** The loaded ones, in load order (the order they are declared in). */
  loaded(): readonly string[] {
    return this.loadedNames;
  }

  /** Every deferred tool still offered, in the registry's order. */
  tools(): AnyTool[] {
    return [...this.names].map((name) => this.lookup(name)).filter((tool): tool is AnyTool => tool !== undefined);
  }

  /** A tool the servers offer from now on that the model has not seen (list_changed) is deferred too. */
  defer(name: string): void {
    this.names.add(name);
  }

  /**
   * Loads deferred tools by exact name; returns those newly loaded. `quiet` (restoring a resumed
   * session's loads) tells no listener, so nothing is recorded twice.
   */
  load(names: readonly string[], quiet = false): string[] {
    const fresh = names.filter((name, index) => this.isPending(name) && this.lookup(name) !== undefined && names.indexOf(name) === index);
    if (fresh.length === 0) return [];
    this.loadedNames.push(...fresh);
    if (!quiet) for (const listener of this.listeners) listener(fresh);
    return fresh;
  }

  /** Called with the names each `load` added (the session log records them, so a resume keeps them). */
  onLoad(listener: (names: string[]) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Deferred tools ranked for a keyword query: a word in the tool's name counts most, a word in its
   * description less, and the whole query in the name most of all. Ties keep the registry's order.
   */
  search(query: string, maxResults: number): AnyTool[] {
    const phrase = query.trim().toLowerCase();
    const words = phrase.split(/[^a-z0-9]+/).filter((word) => word.length > 1);
    const scored = this.tools()
      .map((tool, index) => ({ tool, index, score: relevance(tool, phrase, words) }))
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.slice(0, maxResults).map((entry) => entry.tool);
  }
}

function relevance(tool: AnyTool, phrase: string, words: readonly string[]): number {
  const name = tool.name.toLowerCase();
  // mcp__github__create_issue: the server and tool parts are words of their own.
  const nameWords = new Set(name.split(/[^a-z0-9]+/));
  const description = tool.description.toLowerCase();
  let score = phrase && name.includes(phrase.replace(/\s+/g, '_')) ? 10 : 0;
  for (const word of words) {
    if (nameWords.has(word)) score += 4;
    else if (name.includes(word)) score += 2;
    if (description.includes(word)) score += 1;
  }
  return score;
}

/**
 * The system prompt's list of deferred tools: names only, grouped by MCP server. Made once per
 * session so the prompt stays byte-identical turn to turn.
 */
export function deferredToolsListing(names: readonly string[], servers: readonly DescribedServer[] = []): string {
  if (names.length === 0) return '';
  const lines: string[] = [];
  // Longest name first: server `a__b`'s tools also start with `mcp__a__`.
  const byLength = [...servers].sort((a, b) => b.name.length - a.name.length);
  let current: DescribedServer | undefined;
  for (const name of names) {
    // Tools come grouped by server; a described server's line goes before its first tool.
    const server = byLength.find((candidate) => name.startsWith(`mcp__${candidate.name}__`));
    if (server !== current && server?.description) lines.push(`${server.name} server: ${server.description}`);
    current = server;
    lines.push(name);
  }
  return [
    '# Deferred tools',
    `These tools exist but their schemas are not loaded. Before calling one, load it with ${TOOL_SEARCH}: query "select:<name>[,<name>...]" loads those exact tools (keywords search names and descriptions). A loaded tool can be called from your next step on.`,
    ...lines,
  ].join('\n');
}

/** An MCP server as the listing names it: tools `mcp__<name>__*`, and its one-line description. */
export interface DescribedServer {
  name: string;
  description?: string;
}
