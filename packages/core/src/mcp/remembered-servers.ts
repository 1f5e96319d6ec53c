import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { VERSION } from '../version.js';
import type { McpServerEntry } from './mcp-config.js';
import type { McpPromptInfo } from './mcp-prompts.js';
import type { McpToolInfo } from './mcp-tools.js';
import { builtin } from '../node-builtins.js';

/**
 * What a server offered when it last connected. The next run declares these tools in its first
 * request while the server starts (a Node server alone takes ~200 ms), and a call waits for it.
 */
export interface RememberedServer {
  tools: McpToolInfo[];
  prompts: McpPromptInfo[];
  resources: boolean;
  description?: string;
}

/**
 * One file per server configuration: the name, the whole config (command, arguments, environment,
 * URL, headers) and Beans' version are hashed into its name, so any change starts afresh and no key
 * in an environment or header appears in it.
 */
export function rememberedServerFile(dir: string, entry: McpServerEntry): string {
  const key = builtin('node:crypto')
    .createHash('sha256')
    .update(JSON.stringify([VERSION, entry.name, entry.config]))
    .digest('hex')
    .slice(0, 32);
  return path.join(dir, `${key}.json`);
}

/** The remembered offer, or undefined when there is none or the file is not one. */
export function readRememberedServer(file: string): RememberedServer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  return isRememberedServer(value) ? value : undefined;
}

/** Written whole and renamed into place, so a reader never sees half a file; failing is harmless. */
export function rememberServer(file: string, server: RememberedServer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temporary, JSON.stringify(server));
    renameSync(temporary, file);
  } catch {
    // The next run connects first, as without a remembered offer.
  }
}

function isRememberedServer(value: unknown): value is RememberedServer {
  if (typeof value !== 'object' || value === null) return false;
  const { tools, prompts, resources, description } = value as Record<string, unknown>;
  return (
    typeof resources === 'boolean' &&
    (description === undefined || typeof description === 'string') &&
    Array.isArray(tools) &&
    tools.every((tool) => isObject(tool) && typeof tool.name === 'string' && isObject(tool.inputSchema)) &&
    Array.isArray(prompts) &&
    prompts.every((prompt) => isObject(prompt) && typeof prompt.server === 'string' && typeof prompt.name === 'string' && Array.isArray(prompt.arguments))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
