import type { AnyTool } from '../tools/tool.js';
import { approvalBlocker } from './command-rules.js';
import type { SubjectKind, ToolRule } from './rules.js';
import type { ShellAnalysis, SimpleCommand } from './shell-parse.js';
import { SHELLS, baseName, unwrapStep, type Words } from './unwrap.js';

/**
 * The rules an "always" answer adds, named as Claude Code names them. For a command, each simple
 * command's program and subcommand as bash reads them (`shell(npm test:*)` covers `npm test -- -u`,
 * not `npm publish`); approving `ls` must never approve `rm`. A rule for a whole program only where
 * its arguments cannot make it harmful (`echo`, `sleep`); a program that acts on its operands (`rm
 * build`, `python script.py`) or runs them (`time rm build`, `sudo ...`) gets that exact command, so
 * approving `rm -rf build` never approves `rm -rf ~`; a package runner's rule names the program it
 * runs (`shell(pnpm exec vitest:*)`, never `pnpm exec:*`). Allow rules must cover every form of a
 * command (the wrapper and what it runs), so the rules cover each. A line allow rules could not
 * judge (redirections, substitutions, a glob) adds nothing: it was approved once.
 */
export function alwaysRules(tool: AnyTool, kind: SubjectKind, subject: string | undefined, analysis: ShellAnalysis | undefined): ToolRule[] {
  if (kind === 'domain' && subject !== undefined) return [{ tool: tool.name, pattern: `domain:${subject}`, source: `${tool.name}(domain:${subject})` }];
  if (kind === 'path' || subject === undefined) return [{ tool: tool.name, source: tool.name }];
  if (!analysis || approvalBlocker(analysis) !== undefined) return [];
  const rules: ToolRule[] = [];
  for (const command of analysis.commands) {
    for (const variant of command.variants) {
      const pattern = patternFor(variant, command);
      if (pattern === undefined) return [];
      if (!rules.some((rule) => rule.pattern === pattern)) rules.push({ tool: tool.name, pattern, source: `${tool.name}(${pattern})` });
    }
  }
  return rules;
}

/** The rule for one form of a simple command: a prefix where its words allow one, else the exact line, else none. */
function patternFor(variant: Words, command: SimpleCommand): string | undefined {
  const [program, second, third] = variant;
  if (program === undefined || program !== baseName(program)) return undefined;
  const words = variant.filter((word): word is string => word !== undefined);
  // The exact command as a rule: its words joined, which `*` or a word bash may split would widen.
  const exact = words.length === variant.length && !command.globbed.some(Boolean) && !words.some((word) => /[*\s]/.test(word)) ? words.join(' ') : undefined;
  if (HARMLESS_PROGRAMS.has(program)) return `${program}:*`;
  if (second === undefined || !NAME.test(second) || actsOnOperands(program)) return exact;
  // `npx rimraf:*`, but never `npx rm:*`.
  if (PROGRAM_RUNNERS.has(program) && actsOnOperands(second)) return exact;
  if (PACKAGE_RUNNERS.has(`${program} ${second}`)) {
    return third !== undefined && NAME.test(third) && !actsOnOperands(third) ? `${program} ${second} ${third}:*` : exact;
  }
  return `${program} ${second}:*`;
}

/** A word that can be a subcommand or a program's name (not an option, a path or a file name with an extension). */
const NAME = /^[A-Za-z][\w-]*$/;

/**
 * Its second word is what it acts on or runs, not a subcommand: a wrapper (`time`, `sudo`), a shell
 * (with a script file; with -c it runs a script, which unwrapStep knows), or a program of OPERAND_PROGRAMS.
 */
function actsOnOperands(program: string): boolean {
  return OPERAND_PROGRAMS.has(program) || SHELLS.has(program) || unwrapStep([program, 'a', 'b', 'c']) !== undefined;
}

/** Programs whose arguments cannot make them change or reveal anything: "always" may cover them whole. */
const HARMLESS_PROGRAMS: ReadonlySet<string> = new Set(['echo', 'printf', 'true', 'false', 'sleep', 'pwd', 'whoami', 'uname', 'nproc', 'id']);

/** Programs whose second word is the program they run: their rule names it (`npx prettier:*`). */
const PROGRAM_RUNNERS: ReadonlySet<string> = new Set(['npx', 'pnpx', 'bunx', 'uvx']);

/** Subcommands that run any program named after them: their rule names that program too. */
const PACKAGE_RUNNERS: ReadonlySet<string> = new Set([
  'npm exec',
  'pnpm exec',
  'pnpm dlx',
  'yarn exec',
  'yarn dlx',
  'bun x',
  'bun run',
  'uv run',
  'poetry run',
  'pipenv run',
  'pdm run',
  'hatch run',
  'conda run',
  'pipx run',
  'bundle exec',
  'mise exec',
  'mise x',
  'nix run',
  'nix shell',
  'devbox run',
  'docker exec',
  'kubectl exec',
]);

/**
 * Programs whose second word is what they act on, not a subcommand: `rm build:*` would approve
 * `rm build ~`, so their "always" is the exact command.
 */
const OPERAND_PROGRAMS: ReadonlySet<string> = new Set([
  'rm',
  'rmdir',
  'unlink',
  'mv',
  'cp',
  'install',
  'ln',
  'chmod',
  'chown',
  'chgrp',
  'touch',
  'mkdir',
  'truncate',
  'shred',
  'dd',
  'tee',
  'kill',
  'pkill',
  'killall',
  'sed',
  'awk',
  'perl',
  'find',
  'curl',
  'wget',
  'scp',
  'rsync',
  'ssh',
  'tar',
  'unzip',
  'zip',
  'python',
  'python3',
  'node',
  'ruby',
  'lua',
  'Rscript',
  'tclsh',
  'osascript',
  'pwsh',
  'powershell',
  'deno',
  'bun',
  'php',
]);
