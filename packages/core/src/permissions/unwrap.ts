/**
 * What a simple command really runs. Wrappers such as `sudo`, `timeout` or `xargs` run their
 * arguments; shells, `eval` and `trap` run a script; git's global options come before the
 * subcommand. Both the deny rules and the read-only classifier read a command through this one
 * module, so a wrapper known to one is known to the other.
 */

/** A command's words; undefined where a word is not a literal (`$X`, `$(cmd)`, a glob). */
export type Words = readonly (string | undefined)[];

/** One step of unwrapping: the words run next, a script run by a shell, or "cannot be known". */
export type UnwrapStep =
  | { kind: 'words'; words: Words; /** `env A=1 cmd`: the variables set for the command. */ assignments?: string[] }
  | { kind: 'script'; script: string | undefined }
  | { kind: 'unknown'; reason: string };

interface Wrapper {
  /** Options whose value is the next word (`-u root`). An attached value (`-uroot`, `--user=root`) needs no entry. */
  valued?: readonly string[];
  /** Words after the options that come before the program: timeout's duration, taskset's mask, chroot's folder. */
  positional?: number;
  /** Options whose value is a shell script: `su -c`, `flock -c`, `script -c`. */
  script?: readonly string[];
  /** Runs its arguments joined into one shell script (`watch`, `sg`). */
  joins?: boolean;
  /** With no program after the options it starts an interactive shell, which reads stdin. */
  shellWhenEmpty?: boolean;
  /** Options that mean it runs nothing (`command -v` only prints). */
  inert?: readonly string[];
}

/** Programs that run the command given in their arguments, reviewed one by one. */
const WRAPPERS: Readonly<Record<string, Wrapper>> = {
  command: { inert: ['-v', '-V'] },
  builtin: {},
  exec: { valued: ['-a'] },
  nohup: {},
  time: { valued: ['-f', '--format', '-o', '--output'] },
  nice: { valued: ['-n', '--adjustment'] },
  ionice: { valued: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  stdbuf: { valued: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  sudo: {
    valued: [
      '-u',
      '--user',
      '-g',
      '--group',
      '-C',
      '--close-from',
      '-D',
      '--chdir',
      '-h',
      '--host',
      '-p',
      '--prompt',
      '-r',
      '--role',
      '-t',
      '--type',
      '-U',
      '--other-user',
      '-T',
      '--command-timeout',
    ],
    shellWhenEmpty: true,
  },
  doas: { valued: ['-u', '-C'], shellWhenEmpty: true },
  pkexec: { valued: ['--user'], shellWhenEmpty: true },
  timeout: { valued: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  xargs: {
    valued: [
      '-I',
      '-i',
      '-n',
      '-P',
      '-d',
      '-E',
      '-e',
      '-L',
      '-l',
      '-s',
      '-a',
      '--arg-file',
      '--delimiter',
      '--max-args',
      '--max-procs',
      '--replace',
      '--max-lines',
      '--max-chars',
      '--eof',
      '--process-slot-var',
    ],
  },
  env: { valued: ['-u', '--unset', '-C', '--chdir', '-P'] },
  watch: { valued: ['-n', '--interval', '-d', '--differences', '-q', '--equexit'], joins: true },
  setsid: {},
  taskset: { positional: 1 },
  flock: { valued: ['-w', '--timeout', '-E', '--conflict-exit-code'], positional: 1, script: ['-c', '--command'] },
  chrt: { valued: ['-T', '--sched-runtime', '-P', '--sched-period', '-D', '--sched-deadline'], positional: 1 },
  unshare: { valued: ['-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd', '--map-user', '--map-group', '--propagation'], shellWhenEmpty: true },
  nsenter: { valued: ['-t', '--target', '-S', '--setuid', '-G', '--setgid', '-r', '--root', '-w', '--wd'], shellWhenEmpty: true },
  chroot: { valued: ['--userspec', '--groups'], positional: 1, shellWhenEmpty: true },
  strace: { valued: ['-e', '-o', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-S', '-P', '-X', '-U'] },
  ltrace: { valued: ['-e', '-o', '-p', '-s', '-u', '-a', '-n', '-l', '-x', '-F'] },
  script: {
    valued: ['-E', '--echo', '-I', '--log-in', '-O', '--log-out', '-B', '--log-io', '-T', '--log-timing', '-m', '--logging-format'],
    script: ['-c', '--command'],
    shellWhenEmpty: true,
  },
  su: {
    valued: ['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment'],
    script: ['-c', '--command', '--session-command'],
    shellWhenEmpty: true,
  },
  runuser: {
    valued: ['-u', '--user', '-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment'],
    script: ['-c', '--command', '--session-command'],
    shellWhenEmpty: true,
  },
  sg: { joins: true, positional: 1, script: ['-c'] },
  setpriv: {
    valued: [
      '--reuid',
      '--regid',
      '--groups',
      '--inh-caps',
      '--ambient-caps',
      '--bounding-set',
      '--securebits',
      '--pdeathsig',
      '--selinux-label',
      '--apparmor-profile',
      '--landlock-access',
      '--landlock-rule',
    ],
  },
  numactl: { valued: ['-C', '--physcpubind', '-N', '--cpunodebind', '-m', '--membind', '-p', '--preferred', '-i', '--interleave'] },
  prlimit: { valued: ['-p', '--pid'] },
  cgexec: { valued: ['-g'] },
  fakeroot: { valued: ['-l', '--lib', '--faked', '-s', '-i'] },
  proxychains: { valued: ['-f'] },
  proxychains4: { valued: ['-f'] },
  torsocks: { valued: ['-u', '-p', '-a', '-P'] },
  firejail: {},
  busybox: {},
  catchsegv: {},
  valgrind: {},
  faketime: { valued: ['-m', '-f'], positional: 1 },
  unbuffer: {},
  'dbus-run-session': { valued: ['--config-file', '--dbus-daemon'] },
  'xvfb-run': { valued: ['-n', '--server-num', '-s', '--server-args', '-e', '--error-file', '-f', '--auth-file', '-p', '--xauth-protocol'] },
  'systemd-run': {
    valued: [
      '-p',
      '--property',
      '-u',
      '--unit',
      '-M',
      '--machine',
      '-H',
      '--host',
      '-E',
      '--setenv',
      '--uid',
      '--gid',
      '--nice',
      '--working-directory',
      '--description',
      '--slice',
    ],
  },
  'ssh-agent': { valued: ['-a', '-E', '-P', '-t'] },
  coproc: {},
  parallel: { valued: ['-j', '--jobs', '-S', '--sshlogin', '--arg-file', '-a', '-d', '--delimiter', '-I', '--colsep'] },
};

/** Shells: `-c SCRIPT` runs SCRIPT; a script file runs that file; nothing after the options reads stdin. */
export const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'rbash', 'yash', 'posh']);

/** Builtins after which nothing in the line can be known for sure (`alias x=rm; x f`, `hash -p /bin/rm ls; ls f`). */
const REDEFINERS: Readonly<Record<string, (words: Words) => string | undefined>> = {
  alias: (words) => (words.length > 1 ? 'an alias definition' : undefined),
  hash: (words) => (words.some((word) => word === undefined || /^-\w*p/.test(word)) ? '`hash -p`, which renames programs' : undefined),
  enable: (words) => (words.some((word) => word === undefined || /^-\w*f/.test(word)) ? '`enable -f`, which loads a builtin' : undefined),
  source: () => '`source`, which runs a script file',
  '.': () => '`.`, which runs a script file',
};

export function baseName(program: string): string {
  return program.replace(/^\\+/, '').split('/').pop() ?? program;
}

/** Why the whole line cannot be judged once this command ran (it redefines programs), or undefined. */
export function redefinition(words: Words): string | undefined {
  const first = words[0];
  return first === undefined ? undefined : REDEFINERS[baseName(first)]?.(words);
}

/**
 * One step inward from `words`: the program a wrapper runs, the script a shell, `eval` or `trap`
 * runs, or why it cannot be known. Undefined when `words` runs its own program.
 */
export function unwrapStep(words: Words): UnwrapStep | undefined {
  const first = words[0];
  if (first === undefined) return undefined;
  const program = baseName(first);
  if (program === 'eval') return words.length > 1 ? { kind: 'script', script: joinLiteral(words.slice(1)) } : undefined;
  if (program === 'trap') return trapScript(words);
  if (SHELLS.has(program)) return shellScript(words);
  const wrapper = WRAPPERS[program];
  if (!wrapper) return program !== first ? { kind: 'words', words: [program, ...words.slice(1)] } : undefined;
  let i = 1;
  let script: UnwrapStep | undefined;
  const assignments: string[] = [];
  let split: string[] | undefined;
  while (i < words.length) {
    const word = words[i];
    if (word === '--') {
      i++;
      break;
    }
    if (word === undefined) {
      // A variable where an option may stand: `sudo $OPTS rm`. Its meaning is unknown.
      if (i === 1 || words[i - 1]?.startsWith('-')) return { kind: 'unknown', reason: `a variable among the options of ${program}` };
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (wrapper.inert?.includes(word)) return undefined;
    const [name, attached] = splitOption(word);
    if (wrapper.script?.includes(name)) {
      script = { kind: 'script', script: attached ?? words[i + 1] };
      i += attached === undefined ? 2 : 1;
      continue;
    }
    if (program === 'env' && (name === '-S' || name === '--split-string' || /^-[a-zA-Z]*S/.test(word))) {
      // `env -S 'rm f'` splits its value into the program and its arguments.
      const value = name === '-S' || name === '--split-string' ? (attached ?? words[i + 1]) : word.slice(word.indexOf('S') + 1) || words[i + 1];
      if (value === undefined) return { kind: 'unknown', reason: '`env -S` with a value that is not a literal' };
      split = value.trim().split(/\s+/);
      i += (name === '-S' || name === '--split-string') && attached === undefined ? 2 : word.endsWith('S') ? 2 : 1;
      break;
    }
    i += wrapper.valued?.includes(name) && attached === undefined ? 2 : 1;
  }
  // `flock FILE -c cmd`, `su root -c cmd`, `sg group -c cmd`: the script option may follow a positional word.
  if (!script && wrapper.script) {
    const at = words.findIndex((word, j) => j >= i && word !== undefined && wrapper.script!.includes(splitOption(word)[0]));
    if (at !== -1) {
      const [, attached] = splitOption(words[at]!);
      script = { kind: 'script', script: attached ?? words[at + 1] };
    }
  }
  if (script) return script;
  // `su USER` and `runuser USER` start USER's shell; only `runuser -u USER cmd` runs a program.
  if (program === 'su' || (program === 'runuser' && !words.slice(1, i).some((word) => word === '-u' || word?.startsWith('--user')))) {
    return { kind: 'unknown', reason: `${program} starting a shell that reads its commands from stdin` };
  }
  if (program === 'env') {
    while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] ?? '')) assignments.push(words[i++]!.split('=')[0]);
  }
  i += wrapper.positional ?? 0;
  const rest = [...(split ?? []), ...words.slice(i)];
  if (rest.length === 0) {
    if (program === 'xargs') return { kind: 'words', words: ['echo'] };
    if (wrapper.shellWhenEmpty) return { kind: 'unknown', reason: `${program} starting a shell that reads its commands from stdin` };
    return undefined;
  }
  if (wrapper.joins) return { kind: 'script', script: joinLiteral(rest) };
  return assignments.length > 0 ? { kind: 'words', words: rest, assignments } : { kind: 'words', words: rest };
}

/** `--user=root` -> [`--user`, `root`]; `-uroot` stays whole (short clusters are too varied to split safely). */
function splitOption(word: string): [string, string | undefined] {
  if (word.startsWith('--')) {
    const at = word.indexOf('=');
    return at === -1 ? [word, undefined] : [word.slice(0, at), word.slice(at + 1)];
  }
  return [word, undefined];
}

function joinLiteral(words: Words): string | undefined {
  return words.every((word) => word !== undefined) ? words.join(' ') : undefined;
}

/** `trap 'cmd' EXIT` runs cmd later in the same shell; `trap -p`, `trap -l` and `trap - SIG` run nothing. */
function trapScript(words: Words): UnwrapStep | undefined {
  let i = 1;
  if (words[i] === '--') i++;
  else if (words[i]?.startsWith('-') && words[i] !== '-') return undefined;
  if (words.length - i < 2) return undefined;
  const action = words[i];
  if (action === '-' || action === '') return undefined;
  return { kind: 'script', script: action };
}

/** `bash -c SCRIPT`, `bash -ec SCRIPT`, `bash -s` or `bash` with no script (reads stdin), `bash file.sh`. */
function shellScript(words: Words): UnwrapStep | undefined {
  let command = false;
  let stdin = false;
  let i = 1;
  for (; i < words.length; i++) {
    const word = words[i];
    if (word === undefined) return { kind: 'unknown', reason: 'a shell with options that are not literal' };
    if (word === '--' || word === '-') {
      i++;
      break;
    }
    if (word === '-o' || word === '+o' || word === '-O' || word === '+O' || word === '--init-file' || word === '--rcfile') {
      i++;
      continue;
    }
    if (!/^[-+]/.test(word)) break;
    if (/^-[a-zA-Z]*c/.test(word) || word === '--command') command = true;
    if (/^-[a-zA-Z]*s/.test(word)) stdin = true;
  }
  if (command) return { kind: 'script', script: words[i] };
  if (stdin || i >= words.length) return { kind: 'unknown', reason: 'a shell reading its commands from stdin' };
  return undefined;
}

/** Git's own options before the subcommand that take the next word as their value. */
const GIT_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--list-cmds', '--attr-source']);
/** Git options that can make git run a program of the caller's choosing: aliases, pagers, exec paths. */
const GIT_RECONFIGURES = new Set(['-c', '--config-env', '--exec-path']);

export interface GitCommand {
  /** Index of the subcommand in the words (words.length when there is none). */
  at: number;
  /** The global options before it, as written. */
  globals: string[];
  /** True when a global option can change what git runs (`-c alias.x=!cmd`, `--exec-path`). */
  reconfigures: boolean;
}

/** Finds git's subcommand past its global options: `git --no-pager -C dir push` -> `push`. */
export function gitCommand(words: Words): GitCommand {
  const globals: string[] = [];
  let reconfigures = false;
  let i = 1;
  while (i < words.length) {
    const word = words[i];
    if (word === undefined || !word.startsWith('-')) break;
    const [name, attached] = splitOption(word);
    if (GIT_RECONFIGURES.has(name) || /^-c./.test(word)) reconfigures = true;
    // `--exec-path` alone prints a folder; only `--exec-path=DIR` sets it.
    const takesNext = GIT_VALUED.has(name) && attached === undefined;
    globals.push(...(takesNext ? [word, words[i + 1] ?? '$?'] : [word]));
    i += takesNext ? 2 : 1;
  }
  return { at: i, globals, reconfigures };
}

/** `find ... -exec CMD {} ;` runs CMD; `find ... -delete` removes what it finds. */
export function findCommands(words: Words): Words[] {
  if (words[0] === undefined || baseName(words[0]) !== 'find') return [];
  const out: Words[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === '-delete') out.push(['rm', ...words.slice(1, i).filter((w) => w !== undefined && !w.startsWith('-'))]);
    if (word === '-exec' || word === '-execdir' || word === '-ok' || word === '-okdir') {
      const end = words.findIndex((w, j) => j > i && (w === ';' || w === '+'));
      const inner = words.slice(i + 1, end === -1 ? undefined : end);
      if (inner.length > 0) out.push(inner);
      if (end === -1) break;
      i = end;
    }
  }
  return out;
}
