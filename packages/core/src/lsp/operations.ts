import { readFile } from '../async-fs.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  Range,
  SymbolInformation,
  WorkspaceSymbol,
} from 'vscode-languageserver-protocol';
import type { ServedFile } from './manager.js';

// Claude Code's nine LSP operations, as requests to a running server, and their answers as short
// `file:line:col` lines with the line of source they point at.

export const LSP_OPERATIONS = [
  'goToDefinition',
  'findReferences',
  'hover',
  'documentSymbol',
  'workspaceSymbol',
  'goToImplementation',
  'prepareCallHierarchy',
  'incomingCalls',
  'outgoingCalls',
] as const;
export type LspOperation = (typeof LSP_OPERATIONS)[number];

/** Operations that need a position in the file. */
export const POSITIONAL: ReadonlySet<LspOperation> = new Set([
  'goToDefinition',
  'findReferences',
  'hover',
  'goToImplementation',
  'prepareCallHierarchy',
  'incomingCalls',
  'outgoingCalls',
]);

const MAX_RESULTS = 50;
const MAX_HOVER_CHARS = 3_000;
const SYMBOL_KINDS = [
  '',
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enum member',
  'struct',
  'event',
  'operator',
  'type parameter',
];

export interface OperationInput {
  operation: LspOperation;
  /** 0-based, as the protocol counts. */
  position: { line: number; character: number };
  /** workspaceSymbol's search text. */
  query: string;
}

export interface OperationContext {
  served: ServedFile;
  workspaceRoot: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Runs one operation and returns the text for the model. Throws when the server fails or does not answer. */
export async function runOperation(input: OperationInput, context: OperationContext): Promise<string> {
  const { served, timeoutMs, signal } = context;
  const request = <T>(method: string, params: unknown) => served.server.request<T>(method, params, timeoutMs, signal);
  const at = { textDocument: { uri: served.uri }, position: input.position };
  const show = new Shower(context.workspaceRoot);
  switch (input.operation) {
    case 'goToDefinition':
      return show.locations(await request('textDocument/definition', at), 'No definition found.');
    case 'goToImplementation':
      return show.locations(await request('textDocument/implementation', at), 'No implementation found.');
    case 'findReferences':
      return show.locations(await request('textDocument/references', { ...at, context: { includeDeclaration: true } }), 'No references found.');
    case 'hover':
      return hoverText(await request<Hover | null>('textDocument/hover', at));
    case 'documentSymbol':
      return show.documentSymbols(
        await request<(DocumentSymbol | SymbolInformation)[] | null>('textDocument/documentSymbol', { textDocument: { uri: served.uri } }),
        served.uri,
      );
    case 'workspaceSymbol':
      return show.symbols(
        await request<(SymbolInformation | WorkspaceSymbol)[] | null>('workspace/symbol', { query: input.query }),
        `No symbols match "${input.query}".`,
      );
    case 'prepareCallHierarchy':
      return show.callItems(await request<CallHierarchyItem[] | null>('textDocument/prepareCallHierarchy', at), 'No call hierarchy item at this position.');
    case 'incomingCalls':
    case 'outgoingCalls': {
      const items = (await request<CallHierarchyItem[] | null>('textDocument/prepareCallHierarchy', at)) ?? [];
      if (items.length === 0) return 'No call hierarchy item at this position.';
      if (input.operation === 'incomingCalls') {
        const calls = (await request<CallHierarchyIncomingCall[] | null>('callHierarchy/incomingCalls', { item: items[0] })) ?? [];
        return show.callItems(
          calls.map((call) => ({ ...call.from, selectionRange: call.fromRanges[0] ?? call.from.selectionRange })),
          `Nothing calls ${items[0].name}.`,
        );
      }
      const calls = (await request<CallHierarchyOutgoingCall[] | null>('callHierarchy/outgoingCalls', { item: items[0] })) ?? [];
      return show.callItems(
        calls.map((call) => call.to),
        `${items[0].name} calls nothing.`,
      );
    }
  }
}

/** The word at a position, for workspaceSymbol without a query. */
export async function wordAt(file: string, position: { line: number; character: number }): Promise<string> {
  const line = (await readFile(file, 'utf8')).split('\n')[position.line] ?? '';
  const left = line.slice(0, position.character).match(/[\p{L}\p{N}_$]*$/u)?.[0] ?? '';
  const right = line.slice(position.character).match(/^[\p{L}\p{N}_$]*/u)?.[0] ?? '';
  return left + right;
}

function hoverText(hover: Hover | null): string {
  if (!hover) return 'No hover information at this position.';
  const part = (value: MarkedString | { kind: string; value: string }) => (typeof value === 'string' ? value : value.value);
  const contents = hover.contents;
  const text = (Array.isArray(contents) ? contents.map(part).join('\n\n') : part(contents)).trim();
  if (!text) return 'No hover information at this position.';
  return text.length > MAX_HOVER_CHARS ? `${text.slice(0, MAX_HOVER_CHARS)}…` : text;
}

/** Formats places: paths relative to the workspace, 1-based positions, each with its source line. */
class Shower {
  private readonly files = new Map<string, Promise<string[]>>();
  constructor(private readonly root: string) {}

  async locations(answer: Location | Location[] | LocationLink[] | null, none: string): Promise<string> {
    const list = answer === null ? [] : Array.isArray(answer) ? answer : [answer];
    const places = list.map((item) => ('targetUri' in item ? { uri: item.targetUri, range: item.targetSelectionRange } : item));
    if (places.length === 0) return none;
    const lines = await Promise.all(places.slice(0, MAX_RESULTS).map((place) => this.place(place.uri, place.range)));
    return this.withRest(lines, places.length);
  }

  async documentSymbols(answer: (DocumentSymbol | SymbolInformation)[] | null, uri: string): Promise<string> {
    if (!answer?.length) return 'No symbols in this file.';
    const lines: string[] = [];
    const walk = (symbols: DocumentSymbol[], depth: number) => {
      for (const symbol of symbols) {
        lines.push(`${'  '.repeat(depth)}${symbol.name} (${SYMBOL_KINDS[symbol.kind] ?? 'symbol'}) ${this.position(symbol.selectionRange)}`);
        if (symbol.children) walk(symbol.children, depth + 1);
      }
    };
    if ('location' in answer[0])
      for (const symbol of answer as SymbolInformation[])
        lines.push(`${symbol.name} (${SYMBOL_KINDS[symbol.kind] ?? 'symbol'}) ${this.position(symbol.location.range)}`);
    else walk(answer as DocumentSymbol[], 0);
    return [`${this.relative(uri)}:`, ...this.cut(lines)].join('\n');
  }

  async symbols(answer: (SymbolInformation | WorkspaceSymbol)[] | null, none: string): Promise<string> {
    if (!answer?.length) return none;
    const lines = await Promise.all(
      answer.slice(0, MAX_RESULTS).map((symbol) => {
        const location = symbol.location;
        const range = 'range' in location ? location.range : undefined;
        return range
          ? this.place(location.uri, range, `${symbol.name} (${SYMBOL_KINDS[symbol.kind] ?? 'symbol'})`)
          : Promise.resolve(`${symbol.name} (${SYMBOL_KINDS[symbol.kind] ?? 'symbol'}) ${this.relative(location.uri)}`);
      }),
    );
    return this.withRest(lines, answer.length);
  }

  async callItems(items: CallHierarchyItem[] | null, none: string): Promise<string> {
    if (!items?.length) return none;
    const lines = await Promise.all(
      items.slice(0, MAX_RESULTS).map((item) => this.place(item.uri, item.selectionRange, `${item.name} (${SYMBOL_KINDS[item.kind] ?? 'symbol'})`)),
    );
    return this.withRest(lines, items.length);
  }

  private async place(uri: string, range: Range, label?: string): Promise<string> {
    const where = `${this.relative(uri)}:${this.position(range)}`;
    const source = (await this.sourceLines(uri))[range.start.line]?.trim();
    return `${label ? `${label} ` : ''}${where}${source ? `\n  ${source.length > 200 ? `${source.slice(0, 200)}…` : source}` : ''}`;
  }

  private position(range: Range): string {
    return `${range.start.line + 1}:${range.start.character + 1}`;
  }

  private relative(uri: string): string {
    if (!uri.startsWith('file:')) return uri;
    const file = fileURLToPath(uri);
    const relative = path.relative(this.root, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  }

  private sourceLines(uri: string): Promise<string[]> {
    let lines = this.files.get(uri);
    if (!lines) {
      lines = uri.startsWith('file:')
        ? readFile(fileURLToPath(uri), 'utf8').then(
            (text) => text.split('\n'),
            () => [],
          )
        : Promise.resolve([]);
      this.files.set(uri, lines);
    }
    return lines;
  }

  private cut(lines: string[]): string[] {
    return lines.length > MAX_RESULTS * 4 ? [...lines.slice(0, MAX_RESULTS * 4), `… and ${lines.length - MAX_RESULTS * 4} more`] : lines;
  }

  private withRest(lines: string[], total: number): string {
    return total > lines.length ? [...lines, `… and ${total - lines.length} more`].join('\n') : lines.join('\n');
  }
}
