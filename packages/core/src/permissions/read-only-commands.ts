/**
 * The programs a command line may use and still run without asking, each with the options it may
 * take. This file is the list to review: anything not here, or used with an option not listed for
 * it, asks as before. Options that write files, run programs or follow a file forever are left out
 * on purpose, and the reason is noted beside the program. The checker is read-only.ts.
 *
 * Options that follow symbolic links while walking folders (`grep -R`, `rg -L`, `fd -L`, `find -L`,
 * `find -follow`, `du -L`, `tree -l`, `ls -L`) are left out everywhere: a link inside the workspace
 * could lead the walk outside it, which the check of the paths named on the line cannot see.
 */

export interface ReadOnlyProgram {
  /** Short options, one letter each, combinable (`-la`). */
  short?: string;
  /** Short options that take a value, attached (`-n5`) or as the next word (`-n 5`). */
  shortValued?: string;
  /** Long options; any of them may carry an attached `=value`. */
  long?: readonly string[];
  /** Long options that take a value, attached (`--sort=time`) or as the next word. */
  longValued?: readonly string[];
  /** Long options that take the next two words (`jq --arg name value`). */
  longTwoValued?: readonly string[];
  /** Every option is read-only except those in `refuse` (git log's hundreds of display options). */
  anyOption?: boolean;
  /** Options refused even with `anyOption`, by exact name. */
  refuse?: readonly string[];
  /** `-5` as a count (head, tail). */
  numeric?: boolean;
  /** Options only before the first operand; later words are operands (echo, printf). */
  optionsFirst?: boolean;
  /** At most this many operands: `uniq in out` writes `out`. */
  maxOperands?: number;
  /** Operands are text, not paths (echo, tr); their values are not checked against the workspace. */
  textOperands?: boolean;
  /** The first operand is a pattern or script, not a path, unless one of these options gave it. */
  patternFirst?: readonly string[];
  /** Options whose value is a pattern or text, not a path. */
  patternOptions?: readonly string[];
  /** No option of the program writes, runs a program or blocks, so words from a glob or `xargs` cannot do harm. */
  anyArgsSafe?: boolean;
  /** At least one of these options must be given (`git config --get`: without it, config sets a value). */
  requires?: readonly string[];
  /** Operands are only allowed with one of these options (`git branch --list PATTERN`: without it, a name creates a branch). */
  operandsNeed?: readonly string[];
  /** Named further check in read-only.ts (sed's script, find's expression, git and npm subcommands). */
  check?: 'sed' | 'find';
  /** Subcommands, chosen by the first operand (after git's own options). */
  subcommands?: Readonly<Record<string, ReadOnlyProgram>>;
}

const GREP_LONG = [
  '--extended-regexp', '--fixed-strings', '--basic-regexp', '--perl-regexp', '--ignore-case', '--no-ignore-case', '--word-regexp', '--line-regexp',
  '--null-data', '--no-messages', '--invert-match', '--byte-offset', '--line-number', '--no-line-number', '--line-buffered', '--with-filename',
  '--no-filename', '--only-matching', '--quiet', '--silent', '--text', '--recursive', '--files-without-match',
  '--files-with-matches', '--count', '--initial-tab', '--null', '--color', '--colour', '--help', '--version',
];

/** git log, show and diff share their display options; these are the ones that write, run programs or read elsewhere. */
const GIT_DIFF_REFUSED = ['--output', '--ext-diff', '--textconv', '--exec', '--open-files-in-pager', '-O', '--no-index'];

const GIT_SUBCOMMANDS: Record<string, ReadOnlyProgram> = {
  status: {
    short: 'sbvz',
    // `-uno`, `-unormal`: the untracked-files mode.
    shortValued: 'u',
    long: ['--short', '--branch', '--show-stash', '--porcelain', '--long', '--verbose', '--untracked-files', '--ignored', '--ignore-submodules', '--column', '--no-column', '--ahead-behind', '--no-ahead-behind', '--renames', '--no-renames', '--find-renames', '--null'],
    anyArgsSafe: true,
  },
  // Display options by the hundred: every one is allowed except those that write a file or run a program.
  log: { anyOption: true, refuse: GIT_DIFF_REFUSED },
  show: { anyOption: true, refuse: GIT_DIFF_REFUSED },
  diff: { anyOption: true, refuse: GIT_DIFF_REFUSED },
  blame: { anyOption: true, refuse: ['--textconv', '--contents-from-stdin'] },
  'rev-parse': { anyOption: true, refuse: [] },
  'ls-files': { anyOption: true, refuse: [] },
  describe: { anyOption: true, refuse: [] },
  // Listing only: a name without --list creates a branch; -d, -m, -c, -u and friends change them.
  branch: {
    short: 'alrvi',
    long: ['--all', '--list', '--remotes', '--verbose', '--show-current', '--contains', '--no-contains', '--merged', '--no-merged', '--sort', '--format', '--points-at', '--column', '--no-column', '--color', '--no-color', '--ignore-case', '--abbrev', '--no-abbrev', '--omit-empty'],
    longValued: ['--contains', '--no-contains', '--merged', '--no-merged', '--sort', '--format', '--points-at'],
    patternOptions: ['--format', '--sort'],
    operandsNeed: ['-l', '--list'],
  },
  // Listing only: a name without -l creates a tag; -v runs gpg.
  tag: {
    short: 'li',
    shortValued: 'n',
    long: ['--list', '--contains', '--no-contains', '--merged', '--no-merged', '--sort', '--format', '--points-at', '--column', '--no-column', '--color', '--ignore-case', '--omit-empty'],
    longValued: ['--contains', '--no-contains', '--merged', '--no-merged', '--sort', '--format', '--points-at'],
    patternOptions: ['--format', '--sort'],
    operandsNeed: ['-l', '--list'],
  },
  // `git remote -v` and `git remote get-url NAME`; `show` and `update` reach the network through ssh.
  remote: { short: 'v', long: ['--verbose'], maxOperands: 0, subcommands: { 'get-url': { long: ['--push', '--all'], maxOperands: 1, textOperands: true } } },
  // Reading only: `--get`, `--get-all`, `--get-regexp`, `--list`; any other form sets a value.
  config: {
    short: 'lz',
    long: ['--get', '--get-all', '--get-regexp', '--list', '--local', '--show-origin', '--show-scope', '--null', '--name-only', '--type', '--bool', '--int', '--path', '--default', '--includes', '--no-includes'],
    longValued: ['--type', '--default'],
    requires: ['--get', '--get-all', '--get-regexp', '--list', '-l'],
    textOperands: true,
  },
};

export const READ_ONLY_PROGRAMS: Readonly<Record<string, ReadOnlyProgram>> = {
  // Reading and listing files.
  ls: {
    short: 'aAbBcCdDfFgGhHiklmnNopqQrRsStuUvxXZ1',
    shortValued: 'ITw',
    long: [
      '--all', '--almost-all', '--author', '--escape', '--block-size', '--ignore-backups', '--color', '--directory', '--dired', '--classify', '--file-type',
      '--format', '--full-time', '--group-directories-first', '--no-group', '--human-readable', '--si', '--dereference-command-line',
      '--dereference-command-line-symlink-to-dir', '--hide', '--hyperlink', '--indicator-style', '--inode', '--ignore', '--kibibytes',
      '--numeric-uid-gid', '--literal', '--hide-control-chars', '--show-control-chars', '--quote-name', '--quoting-style', '--reverse', '--recursive',
      '--size', '--sort', '--time', '--time-style', '--tabsize', '--width', '--context', '--zero', '--help', '--version',
    ],
    patternOptions: ['-I', '--ignore', '--hide'],
    anyArgsSafe: true,
  },
  cat: { short: 'AbeEnstTuv', long: ['--show-all', '--number-nonblank', '--show-ends', '--number', '--squeeze-blank', '--show-tabs', '--show-nonprinting', '--help', '--version'], anyArgsSafe: true },
  head: { short: 'qvz', shortValued: 'nc', long: ['--bytes', '--lines', '--quiet', '--silent', '--verbose', '--zero-terminated', '--help', '--version'], longValued: ['--bytes', '--lines'], numeric: true, anyArgsSafe: true },
  // Without -f, -F, --follow, --retry, --pid: a followed file never ends the command.
  tail: { short: 'qvz', shortValued: 'nc', long: ['--bytes', '--lines', '--quiet', '--silent', '--verbose', '--zero-terminated', '--help', '--version'], longValued: ['--bytes', '--lines'], numeric: true },
  wc: { short: 'clmwL', long: ['--bytes', '--chars', '--lines', '--words', '--max-line-length', '--total', '--files0-from', '--help', '--version'], anyArgsSafe: true },
  // Without -C / --compile, which writes a compiled magic file.
  file: {
    short: 'bcdEhiklLNnprsSvz0',
    shortValued: 'eFfmP',
    long: ['--brief', '--checking-printout', '--exclude', '--exclude-quiet', '--extension', '--files-from', '--separator', '--mime', '--mime-type', '--mime-encoding', '--dereference', '--no-dereference', '--keep-going', '--list', '--magic-file', '--no-pad', '--no-buffer', '--preserve-date', '--parameter', '--raw', '--special-files', '--uncompress', '--uncompress-noreport', '--print0', '--help', '--version'],
    longValued: ['--exclude', '--exclude-quiet', '--files-from', '--separator', '--magic-file', '--parameter'],
  },
  stat: { short: 'LftZ', shortValued: 'c', long: ['--dereference', '--file-system', '--format', '--printf', '--terse', '--cached', '--help', '--version'], longValued: ['--format', '--printf'], patternOptions: ['-c', '--format', '--printf'], anyArgsSafe: true },
  du: {
    short: 'abcDhHkmsSxP0',
    shortValued: 'dBtX',
    long: ['--all', '--apparent-size', '--block-size', '--bytes', '--total', '--dereference-args', '--max-depth', '--human-readable', '--inodes', '--count-links', '--no-dereference', '--separate-dirs', '--si', '--summarize', '--threshold', '--time', '--time-style', '--exclude-from', '--exclude', '--one-file-system', '--null', '--files0-from', '--help', '--version'],
    patternOptions: ['--exclude'],
    anyArgsSafe: true,
  },
  // Without -o (writes its listing to a file) and -R (writes 00Tree.html into every folder).
  tree: {
    short: 'adfxACDFghinNpqrsStuvUJX',
    shortValued: 'LPI',
    long: ['--noreport', '--charset', '--filelimit', '--dirsfirst', '--gitignore', '--prune', '--du', '--si', '--sort', '--timefmt', '--matchdirs', '--ignore-case', '--help', '--version'],
    patternOptions: ['-P', '-I'],
  },
  realpath: { short: 'eLmPqsz', long: ['--canonicalize-existing', '--canonicalize-missing', '--logical', '--physical', '--quiet', '--strip', '--no-symlinks', '--zero', '--relative-to', '--relative-base', '--help', '--version'], anyArgsSafe: true },
  basename: { short: 'az', shortValued: 's', long: ['--multiple', '--suffix', '--zero', '--help', '--version'], textOperands: true, anyArgsSafe: true },
  dirname: { short: 'z', long: ['--zero', '--help', '--version'], textOperands: true, anyArgsSafe: true },
  pwd: { short: 'LP', maxOperands: 0, anyArgsSafe: true },
  echo: { short: 'neE', optionsFirst: true, textOperands: true, anyArgsSafe: true },
  // Without `-v VAR` (the builtin then sets a variable instead of printing).
  printf: { textOperands: true },
  which: { short: 'as', textOperands: true, anyArgsSafe: true },
  type: { short: 'afptP', textOperands: true, anyArgsSafe: true },

  // Searching.
  grep: {
    short: 'EFGPiyvwxcLloqsbHhnTZzraIU',
    shortValued: 'efmABCdD',
    long: [...GREP_LONG, '--regexp', '--file', '--max-count', '--label', '--binary-files', '--directories', '--devices', '--include', '--exclude', '--exclude-from', '--exclude-dir', '--before-context', '--after-context', '--context'],
    longValued: ['--regexp', '--file', '--max-count', '--label', '--binary-files', '--directories', '--devices', '--include', '--exclude', '--exclude-from', '--exclude-dir', '--before-context', '--after-context', '--context'],
    patternFirst: ['-e', '--regexp', '-f', '--file'],
    patternOptions: ['-e', '--regexp', '--include', '--exclude', '--exclude-dir', '--label'],
    anyArgsSafe: true,
  },
  // Without --pre / --pre-glob (runs a program on every file) and --hostname-bin (runs a program).
  rg: {
    short: 'aAbBcCeEfFgHhiIjlmMnNopPqrsStTuUvVwxz0',
    shortValued: 'ABCEefgjMmrTt',
    long: [
      '--after-context', '--before-context', '--context', '--binary', '--block-buffered', '--byte-offset', '--case-sensitive', '--color', '--colors', '--column',
      '--context-separator', '--count', '--count-matches', '--crlf', '--debug', '--dfa-size-limit', '--encoding', '--engine', '--field-context-separator',
      '--field-match-separator', '--files', '--files-with-matches', '--files-without-match', '--fixed-strings', '--glob', '--glob-case-insensitive',
      '--heading', '--no-heading', '--hidden', '--iglob', '--ignore-case', '--ignore-file', '--ignore-file-case-insensitive', '--include-zero', '--invert-match',
      '--json', '--line-buffered', '--line-number', '--line-regexp', '--max-columns', '--max-columns-preview', '--max-count', '--max-depth', '--max-filesize',
      '--mmap', '--multiline', '--multiline-dotall', '--no-config', '--no-ignore', '--no-ignore-dot', '--no-ignore-exclude', '--no-ignore-files',
      '--no-ignore-global', '--no-ignore-parent', '--no-ignore-vcs', '--no-line-number', '--no-messages', '--no-unicode', '--null', '--null-data',
      '--only-matching', '--passthru', '--path-separator', '--pcre2', '--quiet', '--regex-size-limit', '--regexp', '--replace', '--search-zip', '--smart-case',
      '--sort', '--sortr', '--stats', '--text', '--threads', '--trim', '--type', '--type-not', '--type-list', '--unrestricted', '--vimgrep', '--with-filename',
      '--no-filename', '--word-regexp', '--help', '--version',
    ],
    longValued: ['--after-context', '--before-context', '--context', '--colors', '--context-separator', '--encoding', '--engine', '--glob', '--iglob', '--ignore-file', '--max-columns', '--max-count', '--max-depth', '--max-filesize', '--path-separator', '--regexp', '--replace', '--sort', '--sortr', '--threads', '--type', '--type-not', '--dfa-size-limit', '--regex-size-limit'],
    patternFirst: ['-e', '--regexp', '-f', '--file', '--files', '--type-list'],
    patternOptions: ['-e', '--regexp', '-g', '--glob', '--iglob', '-r', '--replace', '-t', '--type', '-T', '--type-not', '--colors', '--context-separator'],
  },
  // Its expression is checked by read-only.ts: no -delete, -exec, -execdir, -ok, -okdir, -fprint*, -fls.
  find: { check: 'find' },
  // Without -x / --exec and -X / --exec-batch.
  fd: {
    short: 'HIusigFap0lq1',
    shortValued: 'dEtecjSo',
    long: ['--hidden', '--no-ignore', '--no-ignore-vcs', '--unrestricted', '--case-sensitive', '--ignore-case', '--glob', '--regex', '--fixed-strings', '--absolute-path', '--list-details', '--full-path', '--print0', '--quiet', '--show-errors', '--one-file-system', '--prune', '--max-depth', '--min-depth', '--exact-depth', '--exclude', '--type', '--extension', '--color', '--threads', '--size', '--changed-within', '--changed-before', '--owner', '--max-results', '--search-path', '--path-separator', '--format', '--ignore-file', '--strip-cwd-prefix', '--help', '--version'],
    longValued: ['--max-depth', '--min-depth', '--exact-depth', '--exclude', '--type', '--extension', '--color', '--threads', '--size', '--changed-within', '--changed-before', '--owner', '--max-results', '--search-path', '--path-separator', '--format', '--ignore-file'],
    patternFirst: [],
    patternOptions: ['-E', '--exclude', '-e', '--extension', '--format'],
  },

  // Text tools that cannot write.
  // Without -o / --output (writes a file), --compress-program (runs a program) and -T (writes temporary files elsewhere).
  sort: {
    short: 'bdfgiMhnRrVcCmsuz',
    shortValued: 'ktS',
    long: ['--ignore-leading-blanks', '--dictionary-order', '--ignore-case', '--general-numeric-sort', '--ignore-nonprinting', '--month-sort', '--human-numeric-sort', '--numeric-sort', '--random-sort', '--reverse', '--sort', '--version-sort', '--check', '--merge', '--stable', '--unique', '--zero-terminated', '--debug', '--key', '--field-separator', '--buffer-size', '--parallel', '--batch-size', '--files0-from', '--help', '--version'],
    longValued: ['--key', '--field-separator', '--buffer-size', '--parallel', '--batch-size', '--files0-from', '--sort'],
    patternOptions: ['-k', '--key', '-t', '--field-separator'],
  },
  // One file at most: a second operand is the file uniq writes.
  uniq: { short: 'cdDiuz', shortValued: 'fsw', long: ['--count', '--repeated', '--all-repeated', '--skip-fields', '--ignore-case', '--skip-chars', '--unique', '--zero-terminated', '--check-chars', '--group', '--help', '--version'], longValued: ['--skip-fields', '--skip-chars', '--check-chars'], maxOperands: 1 },
  cut: { short: 'nsz', shortValued: 'bcdf', long: ['--bytes', '--characters', '--delimiter', '--fields', '--complement', '--only-delimited', '--output-delimiter', '--zero-terminated', '--help', '--version'], longValued: ['--bytes', '--characters', '--delimiter', '--fields', '--output-delimiter'], patternOptions: ['-d', '--delimiter', '--output-delimiter'], anyArgsSafe: true },
  tr: { short: 'cCdst', long: ['--complement', '--delete', '--squeeze-repeats', '--truncate-set1', '--help', '--version'], textOperands: true, anyArgsSafe: true },
  diff: { anyOption: true, refuse: [], patternOptions: ['-I', '--ignore-matching-lines', '-F', '--show-function-line', '-x', '--exclude', '--label', '--line-format', '--old-line-format', '--new-line-format', '--unchanged-line-format', '--old-group-format', '--new-group-format', '--changed-group-format', '--unchanged-group-format'], anyArgsSafe: true },
  cmp: { short: 'blsz', shortValued: 'in', long: ['--print-bytes', '--ignore-initial', '--verbose', '--bytes', '--quiet', '--silent', '--zero-terminated', '--help', '--version'], anyArgsSafe: true },
  comm: { short: '123z', long: ['--check-order', '--nocheck-order', '--output-delimiter', '--total', '--zero-terminated', '--help', '--version'], patternOptions: ['--output-delimiter'], anyArgsSafe: true },
  // jq reads and prints; it has no option that writes a file or runs a program.
  jq: {
    short: 'nrjaSCMsceh',
    shortValued: 'fL',
    long: ['--slurp', '--raw-input', '--null-input', '--compact-output', '--tab', '--indent', '--color-output', '--monochrome-output', '--ascii-output', '--unbuffered', '--sort-keys', '--raw-output', '--raw-output0', '--join-output', '--seq', '--stream', '--stream-errors', '--exit-status', '--args', '--jsonargs', '--from-file', '--help', '--version'],
    longValued: ['--indent', '--from-file'],
    longTwoValued: ['--arg', '--argjson', '--slurpfile', '--rawfile'],
    patternFirst: ['-f', '--from-file'],
  },
  // Its script is checked by read-only.ts: no w, W, e, r or R command and no e or w flag; never -i, never a script file.
  sed: {
    short: 'nEsrzu',
    shortValued: 'el',
    long: ['--quiet', '--silent', '--regexp-extended', '--separate', '--null-data', '--unbuffered', '--expression', '--line-length', '--posix', '--sandbox', '--debug', '--help', '--version'],
    longValued: ['--expression', '--line-length'],
    patternFirst: ['-e', '--expression'],
    patternOptions: ['-e', '--expression'],
    check: 'sed',
  },

  // git's read commands; the subcommand comes after `--no-pager` or `-P` only (no -c, -C, --git-dir, --work-tree, --exec-path).
  git: { subcommands: GIT_SUBCOMMANDS },

  // `npm ls` reads node_modules. pnpm and yarn are not here: `pnpm list` loads the repository's
  // .pnpmfile.cjs and yarn its .yarnrc.yml plugins, which run the repository's own code.
  npm: {
    subcommands: Object.fromEntries(
      ['ls', 'list', 'll', 'la'].map((name) => [
        name,
        {
          short: 'alp',
          long: ['--all', '--json', '--long', '--parseable', '--depth', '--omit', '--include', '--link', '--package-lock-only', '--unicode', '--workspace', '--workspaces', '--include-workspace-root', '--no-unicode'],
          longValued: ['--depth', '--omit', '--include', '--workspace'],
          textOperands: true,
        } satisfies ReadOnlyProgram,
      ]),
    ),
  },
};

/** `xargs` may feed only a program whose every option is harmless (`anyArgsSafe`): its words come from input nobody checked. */
export const XARGS: ReadOnlyProgram = {
  short: 'rtx0',
  shortValued: 'nLIdPsaE',
  long: ['--null', '--no-run-if-empty', '--verbose', '--exit', '--max-args', '--max-lines', '--replace', '--delimiter', '--max-procs', '--max-chars', '--arg-file', '--eof'],
  longValued: ['--max-args', '--max-lines', '--replace', '--delimiter', '--max-procs', '--max-chars', '--arg-file', '--eof'],
  patternOptions: ['-I', '--replace', '-d', '--delimiter', '-E', '--eof'],
};

/** `git` options allowed before a read-only subcommand: they only turn the pager off or skip optional locks. */
export const GIT_READ_GLOBALS: readonly string[] = ['--no-pager', '-P', '--no-optional-locks'];

/** find's tests and actions that only look (every other one asks: -delete, -exec, -execdir, -ok, -okdir, -fprint, -fprint0, -fprintf, -fls). */
export const FIND_PREDICATES: Readonly<Record<string, number>> = {
  // name: how many value words follow
  '-name': 1, '-iname': 1, '-path': 1, '-ipath': 1, '-wholename': 1, '-iwholename': 1, '-regex': 1, '-iregex': 1, '-lname': 1, '-ilname': 1,
  '-type': 1, '-xtype': 1, '-maxdepth': 1, '-mindepth': 1, '-size': 1, '-mtime': 1, '-mmin': 1, '-atime': 1, '-amin': 1, '-ctime': 1, '-cmin': 1,
  '-newer': 1, '-anewer': 1, '-cnewer': 1, '-used': 1, '-perm': 1, '-user': 1, '-group': 1, '-uid': 1, '-gid': 1, '-links': 1, '-inum': 1,
  '-samefile': 1, '-regextype': 1, '-printf': 1, '-fstype': 1, '-context': 1,
  '-print': 0, '-print0': 0, '-ls': 0, '-prune': 0, '-o': 0, '-or': 0, '-a': 0, '-and': 0, '-not': 0, '!': 0, '(': 0, ')': 0, ',': 0,
  '-empty': 0, '-readable': 0, '-writable': 0, '-executable': 0, '-true': 0, '-false': 0, '-quit': 0, '-nouser': 0, '-nogroup': 0,
  '-xdev': 0, '-mount': 0, '-depth': 0, '-daystart': 0, '-noleaf': 0, '-ignore_readdir_race': 0, '-noignore_readdir_race': 0,
};

/** find's options before its starting points. */
export const FIND_OPTIONS: readonly string[] = ['-H', '-P', '-O0', '-O1', '-O2', '-O3'];

/** find's predicates whose value is a pattern, not a path. */
export const FIND_PATTERNS: readonly string[] = ['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname', '-printf'];
