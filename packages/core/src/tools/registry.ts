import { toolDeclaration, type AnyTool } from './tool.js';
import type { ToolDeclaration } from '../llm/types.js';

/** The tools one session offers the model, in a stable order. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private declarationCache?: ToolDeclaration[];

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
    this.declarationCache ??= this.list().map(toolDeclaration);
    return this.declarationCache;
  }
}
