import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  CONFIG_READERS,
  FIND_OPTIONS,
  FIND_PATTERNS,
  FIND_PREDICATES,
  GIT_READ_GLOBALS,
  READ_ONLY_PROGRAMS,
  XARGS,
  type ReadOnlyProgram,
} from './read-only-commands.js';
import { globProblem, isInside, linkOutInside, realLocation } from './path-scan.js';
import { SUBSTITUTION_HAZARDS, type ShellAnalysis, type SimpleCommand } from './shell-parse.js';
import { gitCommand, type Words } from './unwrap.js';

/** Read-only: run it as `command` (git read commands get options that keep repository config from running programs). */
export type ReadOnlyVerdict = { readOnly: true; command: string } | { readOnly: false; reason: string };

export interface ReadOnlyOptions {
  /** Paths must lie inside it; without it, only absolute, `~` and `..` paths count as outside. */
  workspaceRoot?: string;
}

/**
 * Whether a command line only reads: every simple command in it, nested ones included, is a program
 * of READ_ONLY_PROGRAMS used with its listed options, and the line has no file redirection, no
 * subshell or compound command, no program name that is not a literal, no variable assignment, and
 * no path outside the workspace. Works on the shell analysis the deny rules use, so a wrapper or a
 * nested script is seen the same way by both. Pure and synchronous: well under a millisecond.
 */
export function classifyReadOnly(analysis: ShellAnalysis, line: string, options: ReadOnlyOptions = {}): ReadOnlyVerdict {
  const no = (reason: string): ReadOnlyVerdict => ({ readOnly: false, reason });
  if (analysis.commands.length === 0) return no('it runs no command');
  const hazard = analysis.hazards.find((entry) => !SUBSTITUTION_HAZARDS.has(entry));
  if (hazard) return no(`it has ${hazard}`);
  if (analysis.unknown.length > 0) return no(`it has ${analysis.unknown[0]}`);
  if (analysis.assignments.length > 0) return no(`it sets ${analysis.assignments[0]}=, which can change what programs do`);
  const paths = new PathCheck(options.workspaceRoot);
  const edits: Edit[] = [];
  for (const command of analysis.commands) {
    const reason = checkCommand(command, paths, edits);
    if (reason) return no(`\`${command.text}\` ${reason}`);
  }
  return { readOnly: true, command: applyEdits(line, edits) };
}

interface Edit {
  at: number;
  text: string;
}

function checkCommand(command: SimpleCommand, paths: PathCheck, edits: Edit[]): string | undefined {
  if (command.assignments.length > 0) return `sets ${command.assignments[0]}= for the program, which can change what it runs`;
  const program = command.words[0];
  if (program === undefined || command.globbed[0]) return 'has a program name that is not a literal word';
  // `./ls` or `bin/cat` may be any program the repository ships.
  if (program.includes('/')) return 'names its program by a path';
  if (program === 'xargs') return checkXargs(command, paths);
  const spec = READ_ONLY_PROGRAMS[program];
  if (!spec) return notListed(program);
  if (program === 'git') return checkGit(command, paths, edits);
  return checkArgs(program, spec, argumentsOf(command), command.globbed.slice(1), paths);
}

function notListed(program: string): string {
  const reads = Object.hasOwn(CONFIG_READERS, program) ? CONFIG_READERS[program] : undefined;
  return reads ? `runs ${program}, which reads ${reads}, so it is never read-only` : `runs ${program}, which is not on the read-only list`;
}

/** The arguments, with a process substitution `<(sort a)` read as the pipe it is (its commands are checked on their own). */
function argumentsOf(command: SimpleCommand): Words {
  return command.words.slice(1).map((word, i) => (word === undefined && /^<\(.*\)$/s.test(command.raw[i + 1] ?? '') ? '/dev/null' : word));
}

/** `ls | xargs cat`: only programs none of whose options can do harm, since the words come from input. */
function checkXargs(command: SimpleCommand, paths: PathCheck): string | undefined {
  const target = command.variants[1];
  if (!target || target[0] === undefined) return 'runs xargs with no program';
  const program = target[0];
  const spec = READ_ONLY_PROGRAMS[program];
  if (!spec || !spec.anyArgsSafe || spec.subcommands) return `feeds ${program} through xargs, whose words nobody checked`;
  // Its words come from its input (a pipe, a here-string, `-a FILE`), which Beans does not see: only
  // a program that reads no file named by its words may take them (issue 53 item 3).
  if (!spec.textOperands) return `feeds ${program} through xargs: the paths it would read come from its input, which Beans cannot check`;
  const ownCount = command.words.length - target.length;
  const own = checkArgs('xargs', XARGS, command.words.slice(1, ownCount), command.globbed.slice(1, ownCount), paths);
  return own ?? checkArgs(program, spec, target.slice(1), command.globbed.slice(ownCount + 1), paths);
}

/** Options Beans adds where it runs a read-only git command, so repository config cannot run a program. */
const GIT_SAFETY: Readonly<Record<string, string>> = {
  diff: ' --no-ext-diff --no-textconv',
  log: ' --no-ext-diff --no-textconv --no-show-signature',
  show: ' --no-ext-diff --no-textconv --no-show-signature',
  blame: ' --no-textconv',
};

function checkGit(command: SimpleCommand, paths: PathCheck, edits: Edit[]): string | undefined {
  const { words } = command;
  const git = gitCommand(words);
  for (const global of git.globals) if (!GIT_READ_GLOBALS.includes(global)) return `uses git's ${global}, which changes what git reads or runs`;
  const sub = words[git.at];
  if (sub === undefined) return git.at >= words.length ? 'runs git with no subcommand' : 'has a git subcommand that is not a literal word';
  const spec = READ_ONLY_PROGRAMS.git.subcommands![sub];
  if (!spec) return `runs git ${sub}, which is not a read-only git command`;
  const reason = checkArgs(`git ${sub}`, spec, words.slice(git.at + 1), command.globbed.slice(git.at + 1), paths);
  if (reason) return reason;
  // Where Beans runs it: core.fsmonitor names a program git status and diff would start; an
  // external diff, a textconv filter or a signature check would run one for diff, log and show.
  if (command.spans) {
    edits.push({ at: command.spans[0][1], text: ' -c core.fsmonitor=false' });
    const safety = GIT_SAFETY[sub];
    if (safety) edits.push({ at: command.spans[git.at][1], text: safety });
  }
  return undefined;
}

function applyEdits(line: string, edits: Edit[]): string {
  let out = line;
  for (const edit of [...edits].sort((a, b) => b.at - a.at)) out = out.slice(0, edit.at) + edit.text + out.slice(edit.at);
  return out;
}

/** Checks a program's arguments against its entry: options, option values, operands and the paths among them. */
function checkArgs(name: string, spec: ReadOnlyProgram, args: Words, globbed: readonly boolean[], paths: PathCheck): string | undefined {
  if (spec.subcommands) {
    const sub = args[0];
    const inner = sub !== undefined ? spec.subcommands[sub] : undefined;
    if (inner) return checkArgs(`${name} ${sub}`, inner, args.slice(1), globbed.slice(1), paths);
    if (!spec.short && !spec.long && !spec.anyOption) return `runs ${name} ${sub ?? ''}`.trimEnd() + ', which is not on the read-only list';
  }
  const parsed = parseOptions(name, spec, args, globbed, paths);
  if (typeof parsed === 'string') return parsed;
  const { operands, seen, values } = parsed;
  if (spec.requires && !spec.requires.some((option) => seen.has(option))) return `needs one of ${spec.requires.join(', ')} to only read`;
  if (spec.maxOperands !== undefined && operands.length > spec.maxOperands) {
    return spec.maxOperands === 0
      ? 'takes no operand here'
      : `has more than ${spec.maxOperands} operand${spec.maxOperands === 1 ? '' : 's'} (the next one would be written)`;
  }
  if (operands.length > 0 && spec.operandsNeed && !spec.operandsNeed.some((option) => seen.has(option)))
    return `with ${operands[0].word} but without ${spec.operandsNeed.join(' or ')} would change the repository`;
  const patternGiven = spec.patternFirst?.some((option) => seen.has(option)) ?? false;
  for (const [index, operand] of operands.entries()) {
    if (spec.textOperands || (spec.patternFirst && !patternGiven && index === 0)) continue;
    const problem = paths.check(operand.word, operand.globbed);
    if (problem) return problem;
  }
  if (spec.check === 'diff') {
    // diff follows links inside the folders it compares (one level, every level with -r).
    const recursive = args.some((arg) => arg === '--recursive' || (arg !== undefined && /^-[^-]*r/.test(arg)));
    const folders = [...operands.map((operand) => operand.word), ...(values.get('--from-file') ?? []), ...(values.get('--to-file') ?? [])];
    for (const folder of folders) {
      const problem = paths.walkProblem(folder, recursive ? 64 : 1);
      if (problem) return problem;
    }
  }
  if (spec.check === 'sed') {
    const scripts = [...(values.get('-e') ?? []), ...(values.get('--expression') ?? [])];
    if (scripts.length === 0 && operands[0]) scripts.push(operands[0].word);
    for (const script of scripts) {
      const problem = sedScriptProblem(script);
      if (problem) return problem;
    }
  }
  return undefined;
}

interface ParsedArgs {
  operands: { word: string; globbed: boolean }[];
  seen: Set<string>;
  values: Map<string, string[]>;
}

function parseOptions(name: string, spec: ReadOnlyProgram, args: Words, globbed: readonly boolean[], paths: PathCheck): ParsedArgs | string {
  if (spec.check === 'find') return checkFind(args, globbed, paths);
  const operands: ParsedArgs['operands'] = [];
  const seen = new Set<string>();
  const values = new Map<string, string[]>();
  let onlyOperands = false;
  const takeValue = (option: string, value: string | undefined, valueGlobbed = false): string | undefined => {
    if (value === undefined) return `has a value for ${option} that is not a literal`;
    values.set(option, [...(values.get(option) ?? []), value]);
    if (spec.patternOptions?.includes(option)) return undefined;
    return paths.check(value, valueGlobbed);
  };
  {
    for (let i = 0; i < args.length; i++) {
      const word = args[i];
      if (word === undefined) {
        if (!spec.textOperands) return 'has an argument that is not a literal word';
        operands.push({ word: '', globbed: false });
        continue;
      }
      if (!onlyOperands && word === '--') {
        onlyOperands = true;
        continue;
      }
      const optionLike = !onlyOperands && word.startsWith('-') && word !== '-';
      // echo prints a word it does not know as an option, and every word after its first operand.
      const printed = spec.optionsFirst && (operands.length > 0 || ![...word.slice(1)].every((letter) => spec.short?.includes(letter)));
      if (!optionLike || printed) {
        if (globbed[i] && !spec.anyArgsSafe && /^[*?[{]/.test(word)) return `has a glob (${word}) that could expand to an option`;
        operands.push({ word, globbed: globbed[i] === true });
        if (spec.optionsFirst) onlyOperands = true;
        continue;
      }
      if (globbed[i]) return `has an option built by a glob (${word})`;
      if (spec.numeric && /^-\d+$/.test(word)) continue;
      if (word.startsWith('--')) {
        const at = word.indexOf('=');
        const option = at === -1 ? word : word.slice(0, at);
        const attached = at === -1 ? undefined : word.slice(at + 1);
        if (spec.refuse?.includes(option)) return `uses ${option}, which is refused for ${name}`;
        seen.add(option);
        if (spec.longTwoValued?.includes(option)) {
          if (args[i + 1] === undefined || args[i + 2] === undefined) return `has a value for ${option} that is not a literal`;
          if (option === '--slurpfile' || option === '--rawfile') {
            const problem = paths.check(args[i + 2]!, globbed[i + 2] === true);
            if (problem) return problem;
          }
          i += 2;
          continue;
        }
        if (!spec.anyOption && !spec.long?.includes(option) && !spec.longValued?.includes(option))
          return `uses ${option}, which is not on the read-only list for ${name}`;
        if (spec.longValued?.includes(option) && attached === undefined) {
          const problem = takeValue(option, args[++i], globbed[i] === true);
          if (problem) return problem;
        } else if (attached !== undefined) {
          const problem = takeValue(option, attached);
          if (problem) return problem;
        }
        continue;
      }
      if (spec.anyOption) {
        // Display options such as -p, -n5, --stat: all allowed but the refused ones (`-O<file>`).
        if (spec.refuse?.some((refused) => refused.length === 2 && !refused.startsWith('--') && word.startsWith(refused)))
          return `uses ${word.slice(0, 2)}, which is refused for ${name}`;
        seen.add(word.slice(0, 2));
        continue;
      }
      for (let j = 1; j < word.length; j++) {
        const letter = word[j];
        const option = `-${letter}`;
        if (spec.shortValued?.includes(letter)) {
          seen.add(option);
          const rest = word.slice(j + 1);
          const problem = rest !== '' ? takeValue(option, rest) : takeValue(option, args[++i], globbed[i] === true);
          if (problem) return problem;
          break;
        }
        if (!spec.short?.includes(letter)) return `uses ${option}, which is not on the read-only list for ${name}`;
        seen.add(option);
      }
    }
  }
  return { operands, seen, values };
}

/** find: starting points, then only the tests and actions of FIND_PREDICATES. */
function checkFind(args: Words, globbed: readonly boolean[], paths: PathCheck): ParsedArgs | string {
  let i = 0;
  while (i < args.length && FIND_OPTIONS.includes(args[i] ?? '')) i++;
  for (; i < args.length; i++) {
    const word = args[i];
    if (word === undefined) return 'has an argument that is not a literal word';
    if (word.startsWith('-') || word === '(' || word === '!' || word === ')') break;
    const problem = paths.check(word, globbed[i] === true);
    if (problem) return problem;
  }
  for (; i < args.length; i++) {
    const word = args[i];
    if (word === undefined) return 'has an argument that is not a literal word';
    const count = FIND_PREDICATES[word] ?? (/^-newer[aBcmt][aBcmt]$/.test(word) ? 1 : undefined);
    if (count === undefined) return `uses find's ${word}, which is not on the read-only list`;
    for (let k = 1; k <= count; k++) {
      const value = args[i + k];
      if (value === undefined) return `has a value for ${word} that is not a literal`;
      if (
        !FIND_PATTERNS.includes(word) &&
        word !== '-type' &&
        !/time|min|size|depth|perm|user|group|uid|gid|links|inum|regextype|fstype|context|xtype/.test(word)
      ) {
        const problem = paths.check(value, globbed[i + k] === true);
        if (problem) return problem;
      }
    }
    i += count;
  }
  return { operands: [], seen: new Set(), values: new Map() };
}

/**
 * A sed script that only prints: addresses, `s` and `y` without the `e` or `w` flags, and commands
 * that print, delete, hold or branch. `w`, `W` write files, `e` runs a command, `r`, `R` read files
 * anywhere; anything the reader does not know refuses the script.
 */
export function sedScriptProblem(script: string): string | undefined {
  let i = 0;
  const n = script.length;
  const refuse = (what: string) => `has a sed script that ${what}`;
  const readDelimited = (delimiter: string): boolean => {
    while (i < n && script[i] !== delimiter) {
      if (script[i] === '\n') return false;
      i += script[i] === '\\' ? 2 : 1;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean => {
    if (/\d/.test(script[i] ?? '')) {
      while (/[\d~]/.test(script[i] ?? '')) i++;
    } else if (script[i] === '$') i++;
    else if (script[i] === '/' || script[i] === '\\') {
      const delimiter = script[i] === '\\' ? script[++i] : '/';
      i++;
      if (delimiter === undefined || !readDelimited(delimiter)) return false;
      while (/[IM]/.test(script[i] ?? '')) i++;
    }
    return true;
  };
  while (i < n) {
    while (i < n && /[\s;]/.test(script[i])) i++;
    if (i >= n) break;
    if (!address()) return refuse('cannot be read');
    if (script[i] === ',') {
      i++;
      if (/[+~]/.test(script[i] ?? '')) i++;
      if (!address()) return refuse('cannot be read');
    }
    while (script[i] === ' ' || script[i] === '!') i++;
    const command = script[i++];
    if (command === undefined) break;
    if ('{}pPdDnNgGhHx=zF'.includes(command)) continue;
    if ('lqQL'.includes(command)) {
      while (/[\d ]/.test(script[i] ?? '')) i++;
      continue;
    }
    if (command === '#' || command === ':' || command === 'b' || command === 't' || command === 'T' || command === 'a' || command === 'i' || command === 'c') {
      // A comment, a label, a branch or text to print: up to the end of the line (labels also end at `;`).
      while (i < n && script[i] !== '\n' && !(script[i] === ';' && 'btT:'.includes(command))) i++;
      continue;
    }
    if (command === 's' || command === 'y') {
      const delimiter = script[i++];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return refuse('cannot be read');
      if (!readDelimited(delimiter) || !readDelimited(delimiter)) return refuse('cannot be read');
      if (command === 's') {
        const flags = /^[gpiImM\d]*/.exec(script.slice(i))![0];
        i += flags.length;
        if (/[ew]/.test(script[i] ?? '')) return refuse(`uses the s flag ${script[i]}, which ${script[i] === 'e' ? 'runs a command' : 'writes a file'}`);
      }
      if (i < n && !/[\s;}]/.test(script[i])) return refuse('cannot be read');
      continue;
    }
    return refuse(
      `uses the command ${command}${'wWeErRv'.includes(command) ? ` (${'wW'.includes(command) ? 'writes a file' : 'eE'.includes(command) ? 'runs a command' : 'rR'.includes(command) ? 'reads any file' : 'is not known'})` : ''}`,
    );
  }
  return undefined;
}

/** Is a path inside the workspace, as written and once links are followed. */
class PathCheck {
  private realRoot: string | undefined;
  constructor(private readonly root: string | undefined) {}

  /** A problem with `word` as a path, or undefined. `globbed`: bash may turn it into other words. */
  check(word: string, globbed = false): string | undefined {
    if (word === '' || word === '/dev/null' || word === '-') return undefined;
    const outside = `names ${word}, outside the workspace`;
    if (word.startsWith('~')) return outside;
    // `{..,.}/x` and `{~,x}/y` become paths the words do not show: refused, not expanded here.
    if (globbed && word.includes('{') && word.includes('}')) return `has a brace expansion (${word}), whose paths Beans does not expand to check`;
    // `.*` matches `..` in older bash: `cat .*/secret` may read the parent folder.
    if (globbed && /(^|\/)\.[*?[]/.test(word)) return `has a glob (${word}) that can match ..`;
    const climbs = word.split('/').includes('..');
    if (!this.root) return path.isAbsolute(word) || climbs ? outside : undefined;
    const absolute = path.resolve(this.root, word);
    if (!isInside(this.root, absolute)) return outside;
    // After a link the kernel takes `..` from where the link leads (`linked/../x`), not from the words.
    if (climbs) return `names ${word}, whose .. Beans does not follow (write the path without it)`;
    this.realRoot ??= safeRealpath(this.root);
    if (globbed) return globProblem(this.root, this.realRoot, word);
    return isInside(this.realRoot, realLocation(absolute)) ? undefined : `names ${word}, which leads outside the workspace`;
  }

  /** For a program that follows links while it walks `word` (a folder): the first link out, down to `depth` levels. */
  walkProblem(word: string, depth: number): string | undefined {
    if (!this.root || word === '' || word === '-') return undefined;
    const real = realLocation(path.resolve(this.root, word));
    if (!isFolder(real)) return undefined;
    this.realRoot ??= safeRealpath(this.root);
    const found = linkOutInside(this.realRoot, real, depth);
    return found ? `compares the folder ${word}, in which ${found} (and diff follows links)` : undefined;
  }
}

function isFolder(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}

function safeRealpath(target: string): string {
  try {
    return realpathSync(target);
  } catch {
    return target;
  }
}
