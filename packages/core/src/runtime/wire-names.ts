import { claudeToolName, toClaudeInput } from '../claude/vocabulary.js';

/**
 * Which tool vocabulary the SDK messages speak: Beans' own (`write_file` with `path`), or Claude
 * Code's (`Write` with an absolute `file_path`), which SDK programs are written against.
 */
export type ToolNames = 'beans' | 'claude';

/** How a tool call appears on the wire: its name and its input. */
export interface WireNames {
  name(beansName: string): string;
  input(beansName: string, input: Record<string, unknown>): Record<string, unknown>;
}

const BEANS: WireNames = { name: (name) => name, input: (_name, input) => input };

/** The vocabulary for a mapper; Claude's needs the workspace root to make paths absolute. */
export function wireNames(names: ToolNames | undefined, workspaceRoot: string | undefined): WireNames {
  if (names !== 'claude') return BEANS;
  const root = workspaceRoot ?? process.cwd();
  return { name: claudeToolName, input: (name, input) => toClaudeInput(name, input, root) };
}
