import type { ShellAnalysis, SimpleCommand } from './shell-parse.js';
import { baseName, type Words } from './unwrap.js';

/**
 * What a pattern rule sees of a command line: for every simple command, the command itself and
 * what it really runs once wrappers are peeled off (`env rm`, `sudo rm`, `xargs rm`, `/bin/rm`,
 * `\\rm`, `find -exec rm`, `find -delete`, `git --no-pager push`), as the shell analysis found them.
 * A word that is not a literal reads `$1`, `$2`, ...
 */
export function commandVariants(command: SimpleCommand): string[][] {
  return command.variants.map((variant) => variant.map((word, i) => word ?? `$${i}`));
}

/** True when the simple command's program is not a literal word (`$CMD args`): no rule can judge it. */
function hasOpaqueProgram(command: SimpleCommand): boolean {
  return command.words[0] === undefined || command.globbed[0] === true;
}

/**
 * Git options that reconfigure or redirect git itself: a rule such as `shell(git *)` must not
 * approve `git -c alias.x='!cmd' x` (runs cmd), `git diff --output=/elsewhere` (writes anywhere),
 * `--exec-path`, `--git-dir`/`--work-tree` (another repository), or `-C` (another folder).
 */
const GIT_UNSAFE =
  /^(-c|--config-env|--exec-path|--git-dir|--work-tree|--namespace|-C|--output|-o|--upload-pack|--receive-pack|--ext-diff|--open-files-in-pager|-O)(=.*)?$|^-c.+/;

/** Why a command line cannot be approved by an allow rule, or undefined when it can be judged. */
export function approvalBlocker(analysis: ShellAnalysis): string | undefined {
  if (analysis.hazards.length > 0) return analysis.hazards[0];
  if (analysis.commands.length === 0) return 'no command';
  if (analysis.unknown.length > 0) return analysis.unknown[0];
  // An allow rule names a program; `PATH=.:$PATH git status` or `LD_PRELOAD=x git status` runs another.
  if (analysis.assignments.length > 0) return `a variable assignment (${analysis.assignments[0]}=) that changes what later commands run`;
  for (const command of analysis.commands) {
    if (hasOpaqueProgram(command)) return 'a program name that is not a literal word';
    if (command.assignments.length > 0) return `a variable set for the command (${command.assignments[0]}=) that can change what it runs`;
    for (const variant of commandVariants(command)) {
      if (baseName(variant[0] ?? '') === 'git' && variant.slice(1).some((word) => GIT_UNSAFE.test(word)))
        return `a git option that reconfigures git (${variant.join(' ')})`;
    }
  }
  return undefined;
}

/**
 * Whether a deny pattern could match the variant for some value of its unknown words (`git $X`
 * may be `git push`; an unquoted `$X` may even be several words). When in doubt, the deny wins.
 */
export function denyPatternMatches(pattern: string, command: SimpleCommand, variant: Words, matches: (pattern: string, command: string) => boolean): boolean {
  // An unquoted glob or brace (`git pu?h`, `r{m,}`) may become any word.
  const globs = new Set(command.words.filter((word, i) => word !== undefined && command.globbed[i]));
  const known = variant.map((word) => (word !== undefined && globs.has(word) ? undefined : word));
  if (matches(pattern, known.map((word, i) => word ?? `$${i}`).join(' '))) return true;
  const unknownAt = known.findIndex((word) => word === undefined);
  if (unknownAt === -1) return false;
  // Put in the unknown word's place whatever the pattern wants there, and the rest of the pattern with it.
  const wanted = pattern.trim().replace(/:\*$/, ' *').split(/\s+/);
  const filler =
    wanted
      .slice(unknownAt)
      .map((token) => token.replace(/\*/g, 'x'))
      .join(' ') || 'x';
  const filled = known.map((word, i) => (i === unknownAt ? filler : (word ?? 'x')));
  return matches(pattern, filled.join(' '));
}
