import { toolDeclaration, type AnyTool } from './tool.js';
import type { ToolDeclaration } from '../llm/types.js';
import type { DeferredTools } from './deferred-tools.js';

/** The tools one session offers the model, in a stable order. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private declarationCache?: ToolDeclaration[];
  private declaredLoads = 0;
  /**
   * Tools offered by name only (deferred MCP tools): left out of `declarations()` until loaded, then
   * declared after every other tool in load order, so the declarations before them never change.
   */
  deferral?: DeferredTools;

  constructor(tools: Iterable<AnyTool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AnyTool): void {
    this.tools.set(tool.name, tool);
    this.declarationCache = undefined;
  }

  unregister(name: string): void {
    if (this.tools.delete(name)) this.declarationCache = undefined;
  }

  get(name: string): AnyTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  list(): AnyTool[] {
    return [...this.tools.values()];
  }

  /** A registry restricted to the given names (an agent's `tools:` list); unknown names are ignored. */
  only(names: readonly string[]): ToolRegistry {
    const wanted = new Set(names);
    return new ToolRegistry(this.list().filter((tool) => wanted.has(tool.name)));
  }

  declarations(): ToolDeclaration[] {
    const deferral = this.deferral;
    if (deferral && deferral.loaded().length !== this.declaredLoads) this.declarationCache = undefined;
    if (this.declarationCache) return this.declarationCache;
    if (!deferral) return (this.declarationCache = this.list().map(toolDeclaration));
    this.declaredLoads = deferral.loaded().length;
    const declared = this.list().filter((tool) => !deferral.isDeferred(tool.name));
    const loaded = deferral.loaded().flatMap((name) => this.tools.get(name) ?? []);
    return (this.declarationCache = [...declared.map(toolDeclaration), ...loaded.map((tool) => ({ ...toolDeclaration(tool), deferLoading: true }))]);
  }
}
