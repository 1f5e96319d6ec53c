import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyReadOnly, sedScriptProblem } from '../../src/permissions/read-only.js';
import { analyzeShellCommand } from '../../src/permissions/shell-parse.js';

// Issue #31: the read-only classifier. Every line on the left runs without asking; every line on
// the right asks (writes, deletes, runs a program, reconfigures, or names a path outside).

const root = mkdtempSync(path.join(tmpdir(), 'beans-read-only-'));
mkdirSync(path.join(root, 'src'));
writeFileSync(path.join(root, 'src', 'a.ts'), 'a\n');
symlinkSync('/etc', path.join(root, 'etc-link'));

async function classify(line: string) {
  return classifyReadOnly(await analyzeShellCommand(line), line, { workspaceRoot: root });
}

const READ_ONLY = [
  // Reading and listing files.
  'ls', 'ls -la', 'ls -lah src', 'ls -1 --color=never src', 'ls --sort=time -r', 'ls -I "*.map" src', 'ls src/*.ts', 'ls -d */',
  'cat README.md', 'cat -n src/a.ts', 'cat src/a.ts package.json', 'head -20 src/a.ts', 'head -n 5 src/a.ts', 'head -c100 src/a.ts',
  'tail -n 20 log.txt', 'tail -5 src/a.ts', 'tail -n +3 src/a.ts', 'wc -l src/a.ts', 'wc -lw src/*.ts', 'file src/a.ts', 'file --mime-type src/a.ts',
  'stat src/a.ts', "stat -c '%s %n' src/a.ts", 'du -sh src', 'du -h --max-depth=1 .', 'tree', 'tree -L 2 src', 'tree -a -I node_modules',
  'realpath src/a.ts', 'basename src/a.ts .ts', 'dirname src/a.ts', 'pwd', 'echo hello', 'echo -n "a b"', 'echo $HOME', 'echo /etc/passwd is a path',
  "printf '%s\\n' a b", 'which node', 'type ls',
  // Searching.
  'grep foo src/a.ts', 'grep -rn "TODO" src', 'grep -rn "/api/v1" src', 'grep -E "a|b" -r .', 'grep -ri --include="*.ts" foo src', 'grep -c x src/a.ts',
  'grep -e foo -e bar src', 'grep -l -r foo .', 'rg foo', 'rg -n "fn main" src', 'rg --type ts -g "!dist" foo', 'rg -l foo src', 'rg --files', 'rg -i -C 3 foo',
  'find . -name "*.ts"', 'find src -type f -name "*.ts" -print', 'find . -maxdepth 2 -type d', 'find . -newer package.json -not -path "./node_modules/*"',
  'find . \\( -name a -o -name b \\) -print0', 'find . -size +1M -ls', 'fd foo', 'fd -e ts src', 'fd -H -t f config',
  // Text tools.
  'sort src/a.ts', 'sort -rn -k2 src/a.ts', 'sort -u -t, -k1,1 data.csv', 'uniq src/a.ts', 'uniq -c', 'cut -d: -f1 src/a.ts', 'cut -c1-10 src/a.ts',
  "tr 'a-z' 'A-Z'", 'tr -d "\\r"', 'diff src/a.ts src/b.ts', 'diff -u a b', 'diff -ru src other', 'cmp a b', 'comm -12 a b', 'jq . package.json',
  "jq -r '.scripts | keys[]' package.json", "jq --arg v 1 '.a == $v' package.json", "sed -n '1,20p' src/a.ts", "sed -n '/start/,/end/p' src/a.ts",
  "sed 's/foo/bar/g' src/a.ts", "sed -e 's/a/b/' -e 's/c/d/g' src/a.ts", "sed -n '$p' src/a.ts", "sed -E 's#(a)/(b)#\\2\\1#' src/a.ts",
  "sed '/^#/d' src/a.ts", "sed -n '2{p;q}' src/a.ts", "sed 'y/abc/xyz/' src/a.ts",
  // git read commands.
  'git status', 'git status --short', 'git status -sb', 'git status --porcelain=v2', 'git status -uno', 'git log', 'git log --oneline -10', 'git log -p -1',
  'git log --stat --since="1 week ago"', 'git log --format="%H %s" main..HEAD', 'git log --oneline -- src/a.ts', 'git diff', 'git diff HEAD', 'git diff --cached',
  'git diff --stat HEAD~3..HEAD', 'git diff main...feature -- src', 'git show', 'git show HEAD:src/a.ts', 'git show --stat abc123', 'git branch', 'git branch -a',
  'git branch -vv', 'git branch --show-current', 'git branch --list "feat/*"', 'git branch --merged main', 'git tag', 'git tag -l "v1.*"', 'git tag --sort=-creatordate',
  'git remote -v', 'git remote', 'git remote get-url origin', 'git rev-parse HEAD', 'git rev-parse --show-toplevel', 'git rev-parse --abbrev-ref HEAD',
  'git ls-files', 'git ls-files -m', 'git blame src/a.ts', 'git blame -L 1,10 src/a.ts', 'git describe --tags', 'git config --get user.name',
  'git config --list', 'git config --get-regexp "^remote\\."', 'git --no-pager log -3', 'git -P diff', 'git --no-optional-locks status',
  // npm listing.
  'npm ls', 'npm ls --depth=0', 'npm list --json', 'npm ls react',
  // Lists, pipelines and read-only substitutions.
  'git status && git diff HEAD', 'git branch --show-current; git log --oneline -10', 'ls || pwd', 'git log --oneline | head -5',
  'grep -rn foo src | sort | uniq -c | sort -rn | head', 'cat src/a.ts | wc -l', 'find . -name "*.ts" | xargs grep -l foo', 'ls src | xargs -n1 basename',
  'echo $(git rev-parse HEAD)', 'diff <(sort a) <(sort b)', 'git log 2>&1 | head', 'ls > /dev/null 2>&1', 'ls src/a.ts etc', '! grep -q foo src/a.ts',
  'cat <<EOF\nhello\nEOF',
];

const ASKS = [
  // The examples.
  'find . -delete', 'find . -name "*.o" -delete', 'find . -exec rm {} \\;', 'find . -exec cat {} +', 'find . -execdir ls \\;', 'find . -ok rm {} \\;',
  'find . -fprint out.txt', 'find . -fls out', 'find . -fprintf out "%p"', 'git diff --output=f', 'git diff --output f', 'git log --output=/tmp/x -p', 'sort -o f src/a.ts',
  'sort --output=f a', 'sed -i s/a/b/ src/a.ts', 'sed -i.bak s/a/b/ src/a.ts', "sed --in-place 's/a/b/' f", "sed 'w f' src/a.ts", "sed -n 'w out' src/a.ts",
  "sed 's/a/b/w out' src/a.ts", "sed 's/a/date/e' src/a.ts", "sed 'e date' src/a.ts", "sed '1r /etc/passwd' src/a.ts", "sed 'R x' src/a.ts", 'sed -f script.sed src/a.ts',
  'git branch -D main', 'git branch -d old', 'git branch new-branch', 'git branch -m a b', 'git branch -u origin/main', "git -c core.pager='sh -c x' log",
  'git -c diff.external=x diff', 'ls > f', 'ls >> f', 'ls 2> errors.txt', 'ls &> all.txt', 'tee f', 'ls | tee f', 'echo $(touch x)', 'echo `touch x`',
  'rg --pre=sh foo', 'rg --pre sh foo', 'rg --hostname-bin=x foo', 'GIT_PAGER=sh git log', 'PAGER=evil git log', 'LD_PRELOAD=x.so ls', 'GIT_EXTERNAL_DIFF=x git diff',
  'cat /etc/passwd', 'ls ../', 'ls ..', 'cat ../secret', 'ls /', 'cat ~/.ssh/id_rsa', 'head ~/.bashrc', 'cat etc-link/passwd', 'grep -r x /etc', 'tail ../../x',
  'ls | xargs rm', 'find . | xargs rm -f', 'ls | xargs sh -c "rm x"', 'ls | xargs sort -o f', 'cat list | xargs git log', 'ls | xargs -I{} cp {} /tmp',
  // Other programs and forms.
  'awk "{print}" src/a.ts', 'perl -ne print src/a.ts', 'python3 -c "print(1)"', 'node -e 1', 'rm src/a.ts', 'touch x', 'mkdir d', 'cp a b', 'mv a b', 'chmod +x a',
  'tail -f log.txt', 'tail -F log.txt', 'tail --follow log.txt', 'uniq in.txt out.txt', 'tree -o out.txt', 'tree -R -H x', 'file -C -m magic', 'fd -x rm', 'fd -X rm',
  'fd --exec rm', 'sort --compress-program=sh a', 'printf -v x hi', 'git push', 'git commit -m x', 'git checkout main', 'git reset --hard', 'git stash',
  'git tag v1.0', 'git tag -d v1', 'git tag -v v1', 'git remote add x y', 'git remote show origin', 'git config user.name evil', 'git config --unset x',
  'git config --add x y', 'git -C /elsewhere status', 'git --git-dir=/x log', 'git --work-tree=/x status', 'git --exec-path=/tmp log', 'git log --ext-diff',
  'git diff --textconv', 'git diff --no-index /etc/passwd x', 'git show --output=x', 'git fetch', 'git pull', 'git clean -fdx', 'git apply x.patch',
  'pnpm list', 'yarn list', 'npm install', 'npm run build', 'npm ls -g', 'jq --slurpfile x /etc/passwd . a.json',
  'ls $DIR', 'cat "$FILE"', 'git log $(echo --output=x)', '$CMD', './ls', 'bin/cat x', '/usr/bin/ls', 'sudo ls', 'env ls', 'nice ls', 'timeout 5 ls', 'command ls',
  'bash -c "ls"', 'sh -c ls', 'eval ls', 'echo ls | sh', '(ls)', '{ ls; }', 'if true; then ls; fi', 'for f in *; do cat $f; done', 'ls && touch x',
  'ls; rm -rf src', 'git status || git push', 'X=1; ls', 'export PATH=.; ls', 'cat .*/secret', 'sort *', 'ls -la `touch y`', 'cat < /etc/passwd',
  'cat <<< "$(rm x)"', 'cat <<EOF\n$(rm x)\nEOF', 'ls >(rm x)', 'git blame --contents /etc/passwd a.ts', 'grep -f /etc/passwd src', 'git log -O/tmp/order -p',
  'grep -R foo .', 'grep --dereference-recursive foo', 'rg -L foo', 'rg --follow foo', 'fd -L x', 'find -L . -name x', 'find . -follow', 'du -L .', 'tree -l', 'ls -RL src',
  'ls() { rm -rf x; }; ls', 'alias ls=rm; ls', 'echo ${!x}', 'echo ${x@P}', 'ls --unknown-option', 'grep --bogus x', 'cd /tmp && ls', 'ls & rm x',
];

describe('read-only classifier (issue #31)', () => {
  it('has at least 150 lines in its table', () => {
    expect(READ_ONLY.length + ASKS.length).toBeGreaterThanOrEqual(150);
  });

  it.each(READ_ONLY)('runs %s without asking', async (line) => {
    const verdict = await classify(line);
    expect(verdict, line).toMatchObject({ readOnly: true });
  });

  it.each(ASKS)('asks for %s', async (line) => {
    const verdict = await classify(line);
    expect(verdict.readOnly, line).toBe(false);
    if (!verdict.readOnly) expect(verdict.reason.length).toBeGreaterThan(5);
  });

  it('says why it refused', async () => {
    expect(await classify('find . -delete')).toEqual({ readOnly: false, reason: "`find . -delete` uses find's -delete, which is not on the read-only list" });
    expect(await classify('cat /etc/passwd')).toEqual({ readOnly: false, reason: '`cat /etc/passwd` names /etc/passwd, outside the workspace' });
    expect(await classify('ls > f')).toMatchObject({ reason: expect.stringContaining('a redirection to a file') });
  });

  it('runs git diff, log, show and blame with repository config unable to start a program', async () => {
    expect(await classify('git diff HEAD')).toEqual({ readOnly: true, command: 'git -c core.fsmonitor=false diff --no-ext-diff --no-textconv HEAD' });
    expect(await classify('git --no-pager log -1 | head')).toEqual({ readOnly: true, command: 'git -c core.fsmonitor=false --no-pager log --no-ext-diff --no-textconv --no-show-signature -1 | head' });
    expect(await classify('git status && git blame a.ts')).toEqual({ readOnly: true, command: 'git -c core.fsmonitor=false status && git -c core.fsmonitor=false blame --no-textconv a.ts' });
    expect(await classify('ls -la')).toEqual({ readOnly: true, command: 'ls -la' });
    expect(await classify('echo "é" && git show')).toEqual({ readOnly: true, command: 'echo "é" && git -c core.fsmonitor=false show --no-ext-diff --no-textconv --no-show-signature' });
  });

  it('reads sed scripts: printing, substituting and branching pass; writing, running and reading files do not', () => {
    for (const script of ['p', '1,5p', '$!N;P;D', 's/a/b/g', 's|/|-|2p', ':a;N;$!ba;s/\\n/ /g', '/x/{s/a/b/;p}', 'y/ab/cd/', '10q', '/^$/d']) expect(sedScriptProblem(script), script).toBeUndefined();
    for (const script of ['w out', 's/a/b/w out', 's/a/b/e', 'e ls', 'r /etc/passwd', '1W x', 's/a/b', 'v', 'p;w x']) expect(sedScriptProblem(script), script).toBeDefined();
  });
});
