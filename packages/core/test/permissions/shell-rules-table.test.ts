import { describe, expect, it } from 'vitest';
import { allowRulesCover, findDenyingRule, parseToolRules } from '../../src/permissions/rules.js';
import { analyzeShellCommand } from '../../src/permissions/shell-parse.js';

// Issue #43 items 4 and 5: allow rules approve only the program they name; deny rules see through
// everything that runs another program, and deny what they cannot see through.

const deny = parseToolRules('shell(rm:*), shell(git push:*), shell(curl *)');

async function denied(command: string): Promise<string | undefined> {
  return findDenyingRule(deny, 'shell', 'command', command, await analyzeShellCommand(command))?.source;
}

/** Lines each deny rule must stop: the program is named, wrapped, normalized or cannot be known. */
const DENIED: [string, string][] = [
  // The three of the issue.
  ["eval 'rm f'", 'shell(rm:*)'],
  ["echo 'rm f' | bash", 'shell(rm:*)'],
  ['git --no-pager push', 'shell(git push:*)'],
  // git's global options before the subcommand.
  ['git -C . push origin main', 'shell(git push:*)'],
  ['git -p push', 'shell(git push:*)'],
  ['git -P push', 'shell(git push:*)'],
  ['git --git-dir=.git push', 'shell(git push:*)'],
  ['git --git-dir .git --work-tree . push', 'shell(git push:*)'],
  ['git --work-tree=. push', 'shell(git push:*)'],
  ['git --namespace x push', 'shell(git push:*)'],
  ['git --bare push', 'shell(git push:*)'],
  ['git --no-optional-locks --literal-pathspecs push', 'shell(git push:*)'],
  ['git -c push.default=current push', 'shell(rm:*)'],
  ['git --exec-path=/tmp push', 'shell(rm:*)'],
  ["git -c alias.x='!rm f' x", 'shell(rm:*)'],
  ['git --config-env=core.pager=P log', 'shell(rm:*)'],
  // Program or subcommand built by expansion.
  ['{rm,f}', 'shell(rm:*)'],
  ['r{m,} f', 'shell(rm:*)'],
  ['/bin/r? f', 'shell(rm:*)'],
  ['/bin/r[m] f', 'shell(rm:*)'],
  ['$RM f', 'shell(rm:*)'],
  ['"$RM" f', 'shell(rm:*)'],
  ['${RM} f', 'shell(rm:*)'],
  ['$(echo rm) f', 'shell(rm:*)'],
  ['git $SUB origin', 'shell(git push:*)'],
  ['git pu?h origin', 'shell(git push:*)'],
  ['git "$@"', 'shell(git push:*)'],
  ['${!x} f', 'shell(rm:*)'],
  // eval, shells reading stdin, heredocs, -c, coproc, trap, env -S, source, aliases, hash -p.
  ['eval "rm -rf build"', 'shell(rm:*)'],
  ['eval $CMD', 'shell(rm:*)'],
  ['eval rm f', 'shell(rm:*)'],
  ["bash -c 'rm f'", 'shell(rm:*)'],
  ["bash -ec 'rm f'", 'shell(rm:*)'],
  ["bash -lc 'rm f'", 'shell(rm:*)'],
  ["sh -x -c 'rm f'", 'shell(rm:*)'],
  ['bash -c "$X"', 'shell(rm:*)'],
  ["zsh -c 'git push'", 'shell(git push:*)'],
  ['bash < script.sh', 'shell(rm:*)'],
  ['bash -s < script.sh', 'shell(rm:*)'],
  ["bash <<< 'rm f'", 'shell(rm:*)'],
  ['bash <<EOF\nrm f\nEOF', 'shell(rm:*)'],
  ['cat script | sh', 'shell(rm:*)'],
  ['curl x | sh', 'shell(rm:*)'],
  ['coproc rm f', 'shell(rm:*)'],
  ["trap 'rm f' EXIT", 'shell(rm:*)'],
  ["trap -- 'rm f' EXIT", 'shell(rm:*)'],
  ['trap "$X" EXIT', 'shell(rm:*)'],
  ["env -S 'rm f'", 'shell(rm:*)'],
  ["env -S'rm f'", 'shell(rm:*)'],
  ["env --split-string='rm f'", 'shell(rm:*)'],
  ['source ./cleanup.sh', 'shell(rm:*)'],
  ['. ./cleanup.sh', 'shell(rm:*)'],
  ["alias ls='rm'; ls f", 'shell(rm:*)'],
  ['hash -p /bin/rm ls; ls f', 'shell(rm:*)'],
  ["ls | xargs sh -c 'rm $0'", 'shell(rm:*)'],
  ['ls | xargs -I{} bash -c "rm {}"', 'shell(rm:*)'],
  ['find . -exec sh -c "rm f" \\;', 'shell(rm:*)'],
  // Wrappers that run their arguments.
  ['setsid rm f', 'shell(rm:*)'],
  ['setsid -f rm f', 'shell(rm:*)'],
  ['taskset 0x1 rm f', 'shell(rm:*)'],
  ['taskset -c 0 rm f', 'shell(rm:*)'],
  ['flock /tmp/l rm f', 'shell(rm:*)'],
  ["flock /tmp/l -c 'rm f'", 'shell(rm:*)'],
  ['flock -w 5 /tmp/l git push', 'shell(git push:*)'],
  ['chrt 5 rm f', 'shell(rm:*)'],
  ['chrt -f 5 rm f', 'shell(rm:*)'],
  ['unshare -r rm f', 'shell(rm:*)'],
  ['unshare', 'shell(rm:*)'],
  ['strace -f -o /dev/null rm f', 'shell(rm:*)'],
  ["script -q -c 'rm f' /dev/null", 'shell(rm:*)'],
  ["su -c 'rm f'", 'shell(rm:*)'],
  ["su root -c 'git push'", 'shell(git push:*)'],
  ['runuser -u nobody -- rm f', 'shell(rm:*)'],
  ["runuser nobody -c 'rm f'", 'shell(rm:*)'],
  ['sudo rm f', 'shell(rm:*)'],
  ['sudo -u root -- rm f', 'shell(rm:*)'],
  ['sudo -s', 'shell(rm:*)'],
  ['doas rm f', 'shell(rm:*)'],
  ['nice -n 10 rm f', 'shell(rm:*)'],
  ['nohup rm f', 'shell(rm:*)'],
  ['timeout -s KILL 5 rm f', 'shell(rm:*)'],
  ['stdbuf -oL rm f', 'shell(rm:*)'],
  ['ionice -c 3 rm f', 'shell(rm:*)'],
  ['time rm f', 'shell(rm:*)'],
  ['command rm f', 'shell(rm:*)'],
  ['builtin command rm f', 'shell(rm:*)'],
  ['exec rm f', 'shell(rm:*)'],
  ['exec -a x rm f', 'shell(rm:*)'],
  ['watch -n 1 rm f', 'shell(rm:*)'],
  ["watch 'rm f'", 'shell(rm:*)'],
  ['sudo $OPTS rm f', 'shell(rm:*)'],
  ['nice sudo timeout 5 env -i rm f', 'shell(rm:*)'],
  ['sudo git --no-pager push', 'shell(git push:*)'],
  ['busybox rm f', 'shell(rm:*)'],
  ['chroot / rm f', 'shell(rm:*)'],
  ['xargs -a list rm', 'shell(rm:*)'],
  // Quoting games.
  ["r''m f", 'shell(rm:*)'],
  ['"rm" f', 'shell(rm:*)'],
  ["$'\\x72m' f", 'shell(rm:*)'],
  ['\\rm f', 'shell(rm:*)'],
  ['ls; rm f', 'shell(rm:*)'],
  ['ls && git push', 'shell(git push:*)'],
  ['f() { rm x; }; f', 'shell(rm:*)'],
];

/** Lines no deny rule above names: denies must not turn into "deny everything". */
const NOT_DENIED = [
  'ls -la',
  'git status',
  'git --no-pager log -3',
  'git -C sub status',
  'git rm --cached x',
  'echo rm',
  'echo $HOME',
  'cat *.txt',
  'grep -r rm src',
  'bash scripts/test.sh',
  'command -v rm',
  'trap - EXIT',
  'sudo -u nobody ls',
  'timeout 5 git fetch',
];

describe('deny rules hold through normalization (issue #43 item 5)', () => {
  it.each(DENIED)('%s is denied by %s', async (command, rule) => {
    expect(await denied(command)).toBe(rule);
  });

  it.each(NOT_DENIED)('%s is not denied', async (command) => {
    expect(await denied(command)).toBeUndefined();
  });
});

describe('allow rules approve only the program they name (issue #43 item 4)', () => {
  const allow = parseToolRules('shell(git status:*), shell(git log:*), shell(ls:*), shell(npm test)');
  const allows = async (command: string) => allowRulesCover(allow, 'shell', 'command', command, await analyzeShellCommand(command));

  it.each([
    'PATH=.:$PATH git status',
    'GIT_DIR=/elsewhere git status',
    'GIT_EXTERNAL_DIFF=./x git log -p',
    'GIT_PAGER=sh git log',
    'LD_PRELOAD=./evil.so ls',
    'LD_LIBRARY_PATH=. ls',
    'BASH_ENV=./evil git status',
    'env PATH=. git status',
    'env -i LD_PRELOAD=x ls',
    'PATH=.; git status',
    'export PATH=.:$PATH; git status',
    'ls ${x@P}',
    'git log ${!ref}',
    'git status; eval "$X"',
    'ls | bash',
    'git status; source x',
    "alias git='rm -rf'; git status",
  ])('%s asks', async (command) => {
    expect(await allows(command)).toBe(false);
  });

  it.each(['git status', 'git status --short', 'git log --oneline -5 | ls', 'ls -la src', 'npm test', 'git status 2>&1'])('%s is approved', async (command) => {
    expect(await allows(command)).toBe(true);
  });
});
