import { createRequire } from 'node:module';
import path from 'node:path';
import type { Node, Parser as TreeSitterParser } from 'web-tree-sitter';

/** One simple command: its words (undefined where a word is not a literal, e.g. `$X`), as written, and its text. */
export interface SimpleCommand {
  words: (string | undefined)[];
  raw: string[];
  text: string;
}

/**
 * A command line as bash would read it (the tree-sitter bash grammar): every simple command it
 * runs, nested ones included, and what makes it unsafe to approve by pattern.
 */
export interface ShellAnalysis {
  commands: SimpleCommand[];
  /** Reasons no allow rule may approve the line: file redirections, substitutions, subshells... */
  hazards: string[];
}

let parser: Promise<TreeSitterParser> | undefined;

/** Loaded on the first shell permission check: the grammar is WebAssembly, ~20 ms to start. */
function loadParser(): Promise<TreeSitterParser> {
  return (parser ??= (async () => {
    const require = createRequire(import.meta.url);
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init();
    const bash = await Language.load(path.join(path.dirname(require.resolve('tree-sitter-bash/package.json')), 'tree-sitter-bash.wasm'));
    const instance = new Parser();
    instance.setLanguage(bash);
    return instance;
  })());
}

export async function analyzeShellCommand(source: string): Promise<ShellAnalysis> {
  const instance = await loadParser();
  const analysis: ShellAnalysis = { commands: [], hazards: [] };
  analyze(instance, source, analysis, 0);
  return analysis;
}

const MAX_NESTING = 4;

function analyze(parser: TreeSitterParser, source: string, out: ShellAnalysis, depth: number): void {
  const tree = parser.parse(source);
  if (!tree) {
    out.hazards.push('the command could not be parsed');
    return;
  }
  try {
    if (tree.rootNode.hasError) out.hazards.push('the command is not valid bash');
    walk(tree.rootNode, out, (script) => {
      if (depth >= MAX_NESTING) out.hazards.push('too deeply nested shells');
      else analyze(parser, script, out, depth + 1);
    });
  } finally {
    tree.delete();
  }
}

/** Node types that run commands Beans cannot see as plain simple commands. */
const HAZARDS: Record<string, string> = {
  command_substitution: 'command substitution',
  process_substitution: 'process substitution',
  subshell: 'a subshell',
  function_definition: 'a function definition',
  arithmetic_expansion: 'arithmetic expansion',
};

function walk(node: Node, out: ShellAnalysis, nested: (script: string) => void): void {
  const hazard = HAZARDS[node.type];
  if (hazard) out.hazards.push(hazard);
  switch (node.type) {
    case 'comment':
      return;
    case 'command':
      collectCommand(node, out, nested);
      break;
    case 'declaration_command':
    case 'unset_command':
    case 'test_command':
      out.commands.push({ words: [node.firstChild?.text ?? node.type], raw: [node.text], text: node.text });
      break;
    case 'file_redirect':
      checkRedirect(node, out);
      break;
    case 'if_statement':
    case 'while_statement':
    case 'for_statement':
    case 'c_style_for_statement':
    case 'case_statement':
    case 'compound_statement':
      out.hazards.push('a compound command');
      break;
  }
  for (const child of node.namedChildren) if (child) walk(child, out, nested);
}

function collectCommand(node: Node, out: ShellAnalysis, nested: (script: string) => void): void {
  const words: (string | undefined)[] = [];
  const parts: string[] = [];
  for (const child of node.namedChildren) {
    if (!child || child.type === 'variable_assignment' || child.type === 'file_redirect' || child.type === 'herestring_redirect') continue;
    const target = child.type === 'command_name' ? child.firstNamedChild ?? child : child;
    words.push(literal(target));
    parts.push(target.text);
  }
  if (words.length === 0) return;
  out.commands.push({ words, raw: parts, text: parts.join(' ') });
  // `bash -c 'script'`: the script's commands count like the line's own.
  const program = words[0] && baseName(words[0]);
  if (program && SHELLS.has(program)) {
    const at = words.indexOf('-c');
    if (at > 0) {
      const script = words[at + 1];
      if (script === undefined) out.hazards.push('a shell script that is not a literal');
      else nested(script);
    }
  }
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

/** Redirections to files can write anywhere; only fd duplications and /dev/null are harmless. */
function checkRedirect(node: Node, out: ShellAnalysis): void {
  const destination = node.namedChildren.filter((child) => child && child.type !== 'file_descriptor').at(-1);
  const operator = node.children.find((child) => child && !child.isNamed)?.text ?? '';
  if (!destination) return;
  const value = literal(destination);
  if ((operator === '>&' || operator === '<&' || operator === '>&-') && value !== undefined && /^(\d+|-)$/.test(value)) return;
  if (value === '/dev/null') return;
  out.hazards.push(`a redirection to a file (${node.text})`);
}

/** The value of a word if it is a literal (quotes removed, escapes applied), else undefined. */
function literal(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
      return node.text.replace(/\\(.)/gs, '$1');
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'string': {
      const inner = node.namedChildren;
      if (inner.some((child) => child && child.type !== 'string_content')) return undefined;
      return node.text.slice(1, -1).replace(/\\([$`"\\\n])/g, '$1');
    }
    case 'concatenation': {
      const values = node.namedChildren.map((child) => (child ? literal(child) : undefined));
      return values.every((value) => value !== undefined) ? values.join('') : undefined;
    }
    default:
      return undefined;
  }
}

function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/gs, (_, escape: string) => {
    if (escape.startsWith('x') && escape.length > 1) return String.fromCharCode(parseInt(escape.slice(1), 16));
    if (/^[0-7]+$/.test(escape)) return String.fromCharCode(parseInt(escape, 8));
    return simple[escape] ?? `\\${escape}`;
  });
}

export function baseName(program: string): string {
  return program.replace(/^\\+/, '').split('/').pop() ?? program;
}
