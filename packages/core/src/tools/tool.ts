import * as z from 'zod';
import type { ContentPart, JsonSchema, ProviderMetadata, ToolDeclaration } from '../llm/types.js';
import type { Workspace } from '../workspace/workspace.js';

/** How a tool touches the world; permissions are decided per kind. */
export type ToolKind = 'read' | 'edit' | 'execute' | 'meta';

export type TodoStatus = 'pending' | 'in_progress' | 'completed';
export interface Todo {
  content: string;
  status: TodoStatus;
}

/** State shared by the tools of one session. */
export interface ToolSessionState {
  /** Real path -> mtimeMs when the model last read or wrote it; edit_file refuses stale edits. */
  fileTimes: Map<string, number>;
  todos: Todo[];
}

export function createToolSessionState(): ToolSessionState {
  return { fileTimes: new Map(), todos: [] };
}

export interface ToolContext {
  signal: AbortSignal;
  workspace: Workspace;
  state: ToolSessionState;
  /** Streams partial output (e.g. shell lines) to the UI. */
  onUpdate?: (text: string) => void;
  /** The environment for commands the model runs, with the keys Beans uses removed; process.env when absent. */
  env?: NodeJS.ProcessEnv;
  /** True for workspace-relative paths a deny rule keeps from every file tool (grep and glob skip them). */
  readDenied?: (relativePath: string) => boolean;
  /**
   * Where whole outputs are saved when a result is cut for the model (under the session's folder);
   * read_file and grep may read inside it although it is outside the workspace.
   */
  outputDir?: string;
  /** Present with --sandbox: shell commands run inside this OS sandbox. */
  sandbox?: import('../sandbox/shell-sandbox.js').ShellSandbox;
  /** The id of the call being executed (a subagent's messages carry it as `parent_tool_use_id`). */
  callId?: string;
  /**
   * The run's event sink: a tool that runs an agent of its own forwards that agent's events here.
   * The sink takes the loop's AgentEvent (agent/types.ts); tools sit below agent/ and never import
   * it, so they see only its shape (a method, so the loop's narrower sink fits).
   */
  emit?(event: ToolEvent): void;
  /** An editor's buffers (ACP): file tools read and write text through it instead of the disk. */
  editorFiles?: EditorFiles;
  /** An editor's terminal (ACP `terminal/create`): foreground shell commands run there, where the person sees them. */
  editorTerminal?: EditorTerminal;
  /** The registry's deferred tools (offered by name only), which `tool_search` searches and loads. */
  deferredTools?: DeferredToolSearch;
  /** The session's background commands (`shell` with `run_in_background`, `shell_output`, `kill_shell`). */
  backgroundTasks?: import('./background-tasks.js').BackgroundTasks;
  /** A program's memory store (`memory` option): the memory tool saves facts there instead of `.beans/memory.md`. */
  memory?: import('../memory/memory-store.js').MemoryStore;
  /** The session's scheduled prompts (`schedule_wakeup`, `cron_*`); absent where nothing hosts them. */
  schedules?: import('./schedule-board.js').ScheduleBoard;
}

/**
 * A terminal of the editor Beans serves (ACP's `terminal/create`, `wait_for_exit`, `output`, `kill`,
 * `release`): it runs a command where the person sees it and returns what it printed. Must not throw
 * for a command that fails; throws only when the editor could not run it at all.
 */
export interface EditorTerminal {
  run(request: EditorTerminalRequest): Promise<EditorTerminalResult>;
}

export interface EditorTerminalRequest {
  /** A bash command line. */
  command: string;
  cwd: string;
  /** Variables to set in the terminal: the keys Beans keeps from commands, set empty (a terminal inherits the editor's environment). */
  env: Record<string, string>;
  /** The tool call it belongs to (the editor shows the terminal in it). */
  callId?: string;
  timeoutMs: number;
  outputByteLimit: number;
  signal: AbortSignal;
}

export interface EditorTerminalResult {
  output: string;
  /** The editor kept only the end of the output. */
  truncated: boolean;
  exitCode: number | null;
  exitSignal: string | null;
  timedOut: boolean;
}

/** What `tool_search` needs of the deferred tools (tools/deferred-tools.ts holds them). */
export interface DeferredToolSearch {
  isDeferred(name: string): boolean;
  /** Loads deferred tools by exact name; returns those newly loaded. */
  load(names: readonly string[]): string[];
  loaded(): readonly string[];
  search(query: string, maxResults: number): AnyTool[];
}

/**
 * Text files as an editor holds them (ACP's `fs/read_text_file` and `fs/write_text_file`): the
 * model reads unsaved buffers, and each change lands in the editor, which shows it and keeps it in
 * its undo history. The file tools resolve and confine every path before they call these, so an
 * editor never widens what a tool may touch; a tool reads and writes the disk when it is absent.
 */
export interface EditorFiles {
  readText?(absolute: string, signal?: AbortSignal): Promise<string>;
  writeText?(absolute: string, text: string, signal?: AbortSignal): Promise<void>;
}

/** What a tool may hand to the run's event sink: one of the agent loop's events. */
export interface ToolEvent {
  type: string;
}

/** Extra data for the UI and session log; never sent to the model. */
export type ToolDetails =
  | { kind: 'diff'; path: string; diff: string; added: number; removed: number }
  | { kind: 'todos'; todos: Todo[] }
  | {
      kind: 'shell';
      exitCode: number | null;
      timedOut: boolean;
      /** Set when the user moved the command to the background (Ctrl+B): the task's id. */
      backgroundTask?: string;
    };

export interface ToolResult {
  /** What the model reads: text, or parts when the result carries images (MCP, screenshots). */
  content: string | ContentPart[];
  isError?: boolean;
  details?: ToolDetails;
  /** Provider-specific data that travels with the result (never shown to the model as text). */
  metadata?: ProviderMetadata;
}

/**
 * A tool the model can call. Its input is described either by a zod schema (built-in tools) or by a
 * JSON Schema (MCP servers, SDK programs), and is validated by whichever it has before it runs.
 */
export interface Tool<Input = unknown> {
  name: string;
  /** Written for the model: when to use the tool and how. */
  description: string;
  kind: ToolKind;
  schema?: z.ZodType<Input>;
  /** A JSON Schema for tools that arrive without zod; passed to the model verbatim. */
  inputSchema?: JsonSchema;
  /**
   * A read-only tool that still asks before reaching a domain it has not been allowed
   * (`web_fetch`): its rules read `web_fetch(domain:example.com)` and match `ruleSubject`'s host.
   */
  asksPerDomain?: boolean;
  /** The string a permission rule like `shell(git *)` or `edit_file(src/**)` is matched against. */
  ruleSubject?(input: Input): string | undefined;
  /** One line for the UI, e.g. `src/a.ts` or `npm test`. */
  summarize?(input: Input): string;
  /** What a confirmation prompt shows before the call runs (a diff, the command). */
  preview?(input: Input, context: Omit<ToolContext, 'signal' | 'onUpdate'>): Promise<ToolDetails | undefined>;
  /**
   * Finds, before anyone is asked, the mistakes that would make the call fail anyway (edit_file's
   * old_string not in the file, a write over a file changed since it was read): throws a
   * ToolInputError with the message execute would give, and the call fails straight back to the
   * model without a permission question. Anything else it throws is ignored (execute reports it).
   */
  check?(input: Input, context: Omit<ToolContext, 'onUpdate'>): Promise<void>;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}

// The registry stores tools of many input types; `any` here is the existential "some Input".
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

/** A zod schema, or the memoised function that builds it (`lazily`), which the tool's first call runs. */
export type SchemaSource = z.ZodType | (() => z.ZodType);

// The building function of each tool defined with one; other tools' source is their schema.
const schemaSources = new WeakMap<AnyTool, () => z.ZodType>();

/**
 * A tool with a zod input schema. The built-in tools pass `lazily(() => z.object(...))`: building
 * their schemas at import cost ~3 ms of every start, and the model is given precomputed JSON
 * Schemas, so a schema is built when a call is first validated.
 */
export function defineTool<S extends z.ZodType>(tool: Omit<Tool<z.infer<S>>, 'schema'> & { schema: S | (() => S) }): Tool<z.infer<S>> {
  const { schema, ...rest } = tool;
  if (typeof schema !== 'function') return tool as Tool<z.infer<S>>;
  const defined = Object.defineProperty(rest, 'schema', { get: schema, enumerable: true }) as Tool<z.infer<S>>;
  schemaSources.set(defined, schema);
  return defined;
}

/** A tool's schema or the function that builds it, without building it. */
export function schemaSource(tool: AnyTool): SchemaSource | undefined {
  return schemaSources.get(tool) ?? tool.schema;
}

/** A tool whose input is described by a JSON Schema (MCP, SDK tools); validated by that schema. */
export function defineJsonSchemaTool(tool: Omit<Tool<Record<string, unknown>>, 'schema'> & { inputSchema: JsonSchema }): Tool<Record<string, unknown>> {
  return tool;
}

/** A tool's one-line summary of a call; a summarizer that throws on odd input gives ''. */
export function summarizeCall(tool: AnyTool | undefined, input: unknown): string {
  try {
    return tool?.summarize?.(input) ?? '';
  } catch {
    return '';
  }
}

// Converting a schema costs ~0.3 ms, and every session declares the built-in tools: theirs are
// converted at build time (builtin-parameters.generated.ts) and registered for these very schemas.
const precomputed = new WeakMap<SchemaSource, JsonSchema>();

export function usePrecomputedParameters(schema: SchemaSource, parameters: JsonSchema | undefined): void {
  if (parameters) precomputed.set(schema, parameters);
}

export function toolDeclaration(tool: AnyTool): ToolDeclaration {
  const source = schemaSource(tool);
  if (!source) return { name: tool.name, description: tool.description, parameters: tool.inputSchema ?? { type: 'object', properties: {} } };
  return { name: tool.name, description: tool.description, parameters: precomputed.get(source) ?? schemaParameters(tool.schema!) };
}

/** The JSON Schema the model is given for a zod input schema. */
export function schemaParameters(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', override: dropNeedlessBounds }) as JsonSchema;
  delete json.$schema;
  return json;
}

// Keywords that tell the model nothing, on every request: zod bounds every .int() by
// Number.MAX_SAFE_INTEGER (30 bytes a field), and no model sends an empty command or pattern
// (14 bytes a field). zod still checks both when a call arrives.
function dropNeedlessBounds({ jsonSchema }: { jsonSchema: { maximum?: unknown; minLength?: unknown } }): void {
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minLength === 1) delete jsonSchema.minLength;
}

/** The text of a result's content: parts joined, images named (for logs, hooks and text-only views). */
export function contentText(content: string | readonly ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'image' ? `[image ${part.mimeType}]` : part.text)).join('\n');
}
