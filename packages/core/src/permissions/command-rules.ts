import { baseName, type ShellAnalysis, type SimpleCommand } from './shell-parse.js';

/**
 * What a pattern rule sees of a command line: for every simple command, the command itself and
 * what it really runs once wrappers are peeled off (`env rm`, `sudo rm`, `xargs rm`, `/bin/rm`,
 * `\\rm`, `find -exec rm`, `find -delete`).
 */
export function commandVariants(command: SimpleCommand): string[][] {
  const original = command.words.map((word, i) => word ?? command.raw[i]!);
  const variants = [original];
  let current = command.words;
  for (let guard = 0; guard < 8; guard++) {
    const next = unwrap(current);
    if (!next || next.length === 0) break;
    variants.push(next.map((word, i) => word ?? `$${i}`));
    current = next;
  }
  const find = findCommands(current);
  for (const inner of find) variants.push(inner);
  return variants;
}

/** True when the simple command's program is not a literal word (`$CMD args`): no rule can judge it. */
export function hasOpaqueProgram(command: SimpleCommand): boolean {
  return command.words[0] === undefined;
}

type Words = (string | undefined)[];

/** Options of wrapper programs that take a value, so the value is not mistaken for the program. */
const WRAPPERS: Record<string, { valued: string[]; positional?: number }> = {
  command: { valued: [] },
  builtin: { valued: [] },
  exec: { valued: ['-a'] },
  nohup: { valued: [] },
  time: { valued: ['-f', '-o'] },
  nice: { valued: ['-n', '--adjustment'] },
  ionice: { valued: ['-c', '-n', '-p', '-P', '-u'] },
  stdbuf: { valued: ['-i', '-o', '-e'] },
  sudo: { valued: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T'] },
  doas: { valued: ['-u', '-C'] },
  timeout: { valued: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  xargs: { valued: ['-I', '-i', '-n', '-P', '-d', '-E', '-e', '-L', '-l', '-s', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--replace'] },
  env: { valued: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'] },
  watch: { valued: ['-n', '--interval', '-d'] },
};

function unwrap(words: Words): Words | undefined {
  const first = words[0];
  if (first === undefined) return undefined;
  const program = baseName(first);
  const wrapper = WRAPPERS[program];
  if (!wrapper) return program !== first ? [program, ...words.slice(1)] : undefined;
  let i = 1;
  while (i < words.length) {
    const word = words[i];
    if (word === '--') {
      i++;
      break;
    }
    if (word === undefined || !word.startsWith('-') || word === '-') break;
    i += wrapper.valued.includes(word) ? 2 : 1;
  }
  // env: VAR=value words before the program.
  if (program === 'env') while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] ?? '')) i++;
  i += wrapper.positional ?? 0;
  const rest = words.slice(i);
  // xargs with no command runs echo.
  return rest.length > 0 ? rest : program === 'xargs' ? ['echo'] : undefined;
}

/** `find ... -exec CMD {} ;` runs CMD; `find ... -delete` removes what it finds. */
function findCommands(words: Words): string[][] {
  if (words[0] === undefined || baseName(words[0]) !== 'find') return [];
  const out: string[][] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === '-delete') out.push(['rm', ...words.slice(1, i).filter((w): w is string => w !== undefined && !w.startsWith('-'))]);
    if (word === '-exec' || word === '-execdir' || word === '-ok' || word === '-okdir') {
      const end = words.findIndex((w, j) => j > i && (w === ';' || w === '+'));
      const inner = words.slice(i + 1, end === -1 ? undefined : end).map((w, j) => w ?? `$${j}`);
      if (inner.length > 0) out.push([baseName(inner[0]!), ...inner.slice(1)]);
      if (end === -1) break;
      i = end;
    }
  }
  return out;
}

/**
 * Git options that reconfigure or redirect git itself: a rule such as `shell(git *)` must not
 * approve `git -c alias.x='!cmd' x` (runs cmd), `git diff --output=/elsewhere` (writes anywhere),
 * `--exec-path`, `--git-dir`/`--work-tree` (another repository), or `-C` (another folder).
 */
const GIT_UNSAFE = /^(-c|--config-env|--exec-path|--git-dir|--work-tree|--namespace|-C|--output|-o|--upload-pack|--receive-pack|--ext-diff|--open-files-in-pager|-O)(=.*)?$|^-c.+/;

/** Why a command line cannot be approved by an allow rule, or undefined when it can be judged. */
export function approvalBlocker(analysis: ShellAnalysis): string | undefined {
  if (analysis.hazards.length > 0) return analysis.hazards[0];
  if (analysis.commands.length === 0) return 'no command';
  for (const command of analysis.commands) {
    if (hasOpaqueProgram(command)) return 'a program name that is not a literal word';
    for (const variant of commandVariants(command)) {
      if (baseName(variant[0] ?? '') === 'git' && variant.slice(1).some((word) => GIT_UNSAFE.test(word))) return `a git option that reconfigures git (${variant.join(' ')})`;
    }
  }
  return undefined;
}
