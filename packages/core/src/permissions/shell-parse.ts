import { createRequire } from 'node:module';
import path from 'node:path';
import type { Node, Parser as TreeSitterParser } from 'web-tree-sitter';
import { baseName, findCommands, gitCommand, redefinition, unwrapStep, type Words } from './unwrap.js';

export { baseName } from './unwrap.js';

/** One simple command as bash reads it, and what it really runs once wrappers are peeled off. */
export interface SimpleCommand {
  /** Its words; undefined where a word is not a literal (`$X`, `$(cmd)`). */
  words: (string | undefined)[];
  /** The words as written. */
  raw: string[];
  text: string;
  /** Variables set for this command alone: `A=1 cmd`, and `env A=1 cmd`'s. */
  assignments: string[];
  /** Per word: true when bash may turn it into other words (an unquoted glob or brace). */
  globbed: boolean[];
  /** Where each word stands in the line; only for commands of the line itself, not of a nested script. */
  spans?: [number, number][];
  /** Every form a rule should judge: as written, after each wrapper (`sudo rm` -> `rm`), git without its global options, what `find -exec` runs. */
  variants: Words[];
  /** The words of the program that really runs, past every wrapper. */
  runs: Words;
}

/**
 * A command line as bash would read it (the tree-sitter bash grammar): every simple command it
 * runs, nested ones included, and what makes it unsafe to approve by pattern.
 */
export interface ShellAnalysis {
  commands: SimpleCommand[];
  /** Reasons no allow rule may approve the line: file redirections, substitutions, subshells... */
  hazards: string[];
  /** Why the programs the line runs cannot all be known (`eval $x`, `echo rm f | bash`, `alias`): any deny rule that names a program denies it. */
  unknown: string[];
  /** Variables the line sets for the rest of it (`PATH=.; ls`). */
  assignments: string[];
}

/** Hazards the read-only classifier accepts when every command inside them is read-only. */
export const SUBSTITUTION_HAZARDS: ReadonlySet<string> = new Set(['command substitution', 'process substitution']);

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
  const analysis: ShellAnalysis = { commands: [], hazards: [], unknown: [], assignments: [] };
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
    if (tree.rootNode.hasError) {
      out.hazards.push('the command is not valid bash');
      out.unknown.push('a line bash may read differently than the parser');
    }
    walk(tree.rootNode, out, {
      top: depth === 0,
      nested: (script) => {
        if (depth >= MAX_NESTING) {
          out.hazards.push('too deeply nested shells');
          out.unknown.push('too deeply nested shells');
        } else analyze(parser, script, out, depth + 1);
      },
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

interface WalkContext {
  /** True for the line itself, false inside a nested script (`bash -c`, `eval`). */
  top: boolean;
  nested: (script: string) => void;
}

function walk(node: Node, out: ShellAnalysis, context: WalkContext): void {
  const hazard = HAZARDS[node.type];
  if (hazard) out.hazards.push(hazard);
  switch (node.type) {
    case 'comment':
      return;
    case 'command':
      collectCommand(node, out, context);
      break;
    case 'declaration_command':
    case 'unset_command':
    case 'test_command': {
      const words = [node.firstChild?.text ?? node.type];
      out.commands.push({ words, raw: [node.text], text: node.text, assignments: [], globbed: [false], variants: [words], runs: words });
      break;
    }
    case 'variable_assignment':
      // `PATH=.:$PATH; git status`: the variable holds for the rest of the line. Those before a
      // command (`A=1 cmd`) are the command's own and are collected with it.
      if (node.parent?.type !== 'command') out.assignments.push(node.childForFieldName('name')?.text ?? node.text);
      break;
    case 'expansion':
      // `${!x}` names another variable; `${x@P}` expands it as a prompt, which runs `$(...)` inside it.
      if (/^\$\{!/.test(node.text) || /@P\}$/.test(node.text)) out.hazards.push(`an indirect or prompt expansion (${node.text})`);
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
  for (const child of node.namedChildren) if (child) walk(child, out, context);
}

function collectCommand(node: Node, out: ShellAnalysis, context: WalkContext): void {
  const words: (string | undefined)[] = [];
  const parts: string[] = [];
  const globbed: boolean[] = [];
  const spans: [number, number][] = [];
  const assignments: string[] = [];
  for (const child of node.namedChildren) {
    if (!child || child.type === 'file_redirect' || child.type === 'herestring_redirect') continue;
    if (child.type === 'variable_assignment') {
      assignments.push(child.childForFieldName('name')?.text ?? child.text);
      continue;
    }
    const target = child.type === 'command_name' ? (child.firstNamedChild ?? child) : child;
    words.push(literal(target));
    parts.push(target.text);
    globbed.push(expands(target));
    spans.push([target.startIndex, target.endIndex]);
  }
  if (words.length === 0) return;
  const command: SimpleCommand = { words, raw: parts, text: parts.join(' '), assignments, globbed, variants: [], runs: words };
  if (context.top) command.spans = spans;
  out.commands.push(command);
  // A program name bash builds by expansion (`$CMD`, `{rm,x}`, `/bin/r?`) cannot be judged by name.
  if (words[0] === undefined || globbed[0]) out.unknown.push(`a program name that is not a literal word (${parts[0]})`);
  command.runs = follow(words, command, out, context);
  for (const inner of findCommands(command.runs)) follow(inner, command, out, context);
}

/** Walks a command inward through its wrappers, recording each form, and returns what finally runs. */
function follow(start: Words, command: SimpleCommand, out: ShellAnalysis, context: WalkContext): Words {
  let current = start;
  const redefines = redefinition(current);
  if (redefines) out.unknown.push(redefines);
  command.variants.push(current);
  for (let guard = 0; guard < 16; guard++) {
    const step = unwrapStep(current);
    if (!step) break;
    if (step.kind === 'unknown') {
      out.unknown.push(step.reason);
      break;
    }
    if (step.kind === 'script') {
      if (step.script === undefined) out.unknown.push(`a script that is not a literal (${command.text})`);
      else context.nested(step.script);
      break;
    }
    if (step.words[0] === undefined) out.unknown.push(`a program name that is not a literal word (${command.text})`);
    command.assignments.push(...(step.assignments ?? []));
    current = step.words;
    const again = redefinition(current);
    if (again) out.unknown.push(again);
    command.variants.push(current);
  }
  if (current[0] !== undefined && baseName(current[0]) === 'git') {
    const git = gitCommand(current);
    // `git -c alias.x='!rm f' x`, `git --exec-path=/tmp x`: git may run any program.
    if (git.reconfigures) out.unknown.push(`git options that can change what git runs (${git.globals.join(' ')})`);
    if (git.globals.length > 0) command.variants.push(['git', ...current.slice(git.at)]);
  }
  return current;
}

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

/** True when bash may expand the word into other words: an unquoted `*`, `?`, `[` or a `{a,b}` / `{1..3}` brace. */
function expands(node: Node): boolean {
  const unquoted = (part: Node): string => {
    if (part.type === 'word') return part.text.replace(/\\./gs, 'q');
    if (part.type === 'concatenation') return part.namedChildren.map((child) => (child ? unquoted(child) : '')).join('');
    if (part.type === 'brace_expression') return '{a,b}';
    return 'q';
  };
  const text = unquoted(node);
  return /[*?[]/.test(text) || /\{[^{}]*(,|\.\.)[^{}]*\}/.test(text);
}

function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    a: '\x07',
    b: '\b',
    e: '\x1b',
    E: '\x1b',
    f: '\f',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '?': '?',
  };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/gs, (_, escape: string) => {
    if (escape.startsWith('x') && escape.length > 1) return String.fromCharCode(parseInt(escape.slice(1), 16));
    if (/^[0-7]+$/.test(escape)) return String.fromCharCode(parseInt(escape, 8));
    return simple[escape] ?? `\\${escape}`;
  });
}
