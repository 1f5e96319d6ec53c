import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { resolveReadable } from './saved-output.js';
import picomatch from 'picomatch';
import * as z from 'zod';
import { ToolInputError } from '../errors.js';
import { confinedPaths } from '../workspace/confine.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import { GitignoreFilter } from './gitignore.js';
import { confirmMatches, type ReportedMatch } from './grep-verify.js';
import { commandOnPath, compileRegex, EngineUnavailable, runEngine, type GrepEngine, type GrepQuery } from './grep-engines.js';
import { guarded } from './result.js';
import { plural } from './text.js';
import { defineTool } from './tool.js';
import { lazily } from '../lazily.js';

export const GREP_MAX_MATCHES = 200;
const GREP_MAX_LINE_CHARS = 300;
const GREP_MAX_CHARS = 24_000;
/** Past this many matches counting stops too: the total is reported as "more than". */
const GREP_COUNT_CAP = 100_000;

const schema = lazily(() =>
  z.object({
    pattern: z.string().min(1),
    path: z.string().optional().describe('File or folder (default: workspace root)'),
    include: z.string().optional().describe('File glob, e.g. "*.ts"'),
    ignore_case: z.boolean().optional(),
  }),
);

export const grepTool = defineTool({
  name: 'grep',
  kind: 'read',
  description:
    'Search file contents by regex (PCRE/JavaScript syntax). Returns "path:line: text" lines; honours .gitignore, skips binary files; ' +
    `at most ${GREP_MAX_MATCHES} matches plus a count of the rest.`,
  schema,
  summarize: (input) => `/${input.pattern}/${input.path ? ` in ${input.path}` : ''}${input.include ? ` (${input.include})` : ''}`,
  ruleSubject: (input) => input.path ?? '.',
  async execute(input, ctx) {
    return guarded(ctx.signal, async () => {
      // A saved whole output of this session (outside the workspace): searched on its own.
      const saved = input.path && ctx.outputDir && path.isAbsolute(input.path) ? resolveReadable(ctx, input.path) : undefined;
      if (saved && saved.relative === saved.absolute) {
        const folder = path.dirname(saved.absolute);
        return searchWorkspace({ root: folder, cwd: folder, isGit: false }, { ...input, path: path.basename(saved.absolute) }, ctx.signal, ['js']);
      }
      return searchWorkspace(ctx.workspace, input, ctx.signal, undefined, ctx.readDenied);
    });
  },
});

export interface GrepInput {
  pattern: string;
  path?: string;
  include?: string;
  ignore_case?: boolean;
}

/**
 * Engines in order of preference: ripgrep when installed (the fastest, and linear-time: no regex can
 * hang it), then git grep in repositories, then JavaScript. A regex an engine's dialect rejects
 * (ripgrep has no backreferences or lookaround) falls through to the next.
 */
export function pickGrepEngines(workspace: Workspace): GrepEngine[] {
  const engines: GrepEngine[] = [];
  if (commandOnPath('rg')) engines.push('rg');
  if (workspace.isGit && commandOnPath('git')) engines.push('git');
  engines.push('js');
  return engines;
}

/** The grep tool's body; `engines` is exposed so tests and benchmarks can pin one. */
export async function searchWorkspace(
  workspace: Workspace,
  input: GrepInput,
  signal: AbortSignal,
  engines = pickGrepEngines(workspace),
  readDenied?: (relativePath: string) => boolean,
) {
  let pattern = input.pattern;
  let ignoreCase = input.ignore_case ?? false;
  // Models often write the PCRE inline flag; JavaScript has no such syntax.
  if (pattern.startsWith('(?i)')) {
    pattern = pattern.slice(4);
    ignoreCase = true;
  }
  const base = resolveInWorkspace(workspace, input.path ?? '.');
  const root = resolveInWorkspace(workspace, '.').absolute;
  if (!existsSync(base.absolute)) throw new ToolInputError(`Path not found: ${base.relative}. Use glob or list_directory to find the right one.`);
  const display = lineDisplay(pattern, ignoreCase);
  const includes = includeFilter(input.include, base.relative);

  const shown: ReportedMatch[] = [];
  let chars = 0;
  let total = 0;
  const files = new Set<string>();
  let lastFile = '';
  let lastIncluded = true;
  const confined = confinedPaths(root);
  const sink = (file: string, line: number, text: string): boolean => {
    if (file !== lastFile) {
      lastFile = file;
      // Every reported path is checked again: no engine result may name a file outside the workspace.
      lastIncluded = confined(file) && includes(file) && !readDenied?.(file);
    }
    if (!lastIncluded) return true;
    total++;
    files.add(file);
    if (shown.length < GREP_MAX_MATCHES && chars < GREP_MAX_CHARS) {
      shown.push({ file, line, text });
      chars += `${file}:${line}: ${display(text)}`.length + 1;
    }
    return total < GREP_COUNT_CAP;
  };

  const query: GrepQuery = { pattern, ignoreCase, root, base, include: input.include, acceptFile: input.include ? includes : undefined, signal };
  // An ignored folder stays unsearched whichever engine runs (ripgrep would search a folder it is handed).
  const baseIgnored = base.relative !== '.' && statSync(base.absolute).isDirectory() && new GitignoreFilter(root).ignores(base.relative, true);
  for (const [i, engine] of baseIgnored ? [] : engines.entries()) {
    try {
      await runEngine(engine, query, sink);
      break;
    } catch (error) {
      if (!(error instanceof EngineUnavailable) || i === engines.length - 1) throw error;
      shown.length = chars = total = 0;
      files.clear();
      lastFile = '';
    }
  }
  signal.throwIfAborted();
  // What is shown is read again through descriptors: nothing an engine read through a swapped
  // folder reaches the model. Matches only counted (past the shown ones) are not re-read.
  const confirmed = await confirmMatches(root, shown, signal);
  total -= shown.length - confirmed.length;
  const confirmedFiles = new Set(confirmed.map((match) => match.file));
  for (const match of shown) if (!confirmedFiles.has(match.file)) files.delete(match.file);

  const where = base.relative === '.' ? 'the workspace' : base.relative;
  if (total === 0) {
    let hint = input.include ? ` among files matching ${input.include}` : '';
    if (baseIgnored) {
      hint += `. ${base.relative} is ignored by .gitignore and grep skips ignored files; search it with shell (grep -rn) instead`;
    }
    return { content: `No matches for /${input.pattern}/ in ${where}${hint}.` };
  }
  let content = confirmed.map((match) => `${match.file}:${match.line}: ${display(match.text)}`).join('\n');
  if (total > confirmed.length) {
    const count = total >= GREP_COUNT_CAP ? `more than ${plural(total, 'match', 'matches')}` : plural(total, 'match', 'matches');
    content += `\n\n[Showing ${confirmed.length} of ${count} in ${plural(files.size, 'file')}. Narrow the search with path, include or a more specific pattern.]`;
  }
  return { content };
}

/** Cuts long lines to a window around the first match, so minified files stay readable. */
function lineDisplay(pattern: string, ignoreCase: boolean): (text: string) => string {
  let regex: RegExp | undefined;
  try {
    regex = compileRegex(pattern, ignoreCase);
  } catch {
    regex = undefined;
  }
  return (raw) => {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.length <= GREP_MAX_LINE_CHARS) return text;
    const at = regex ? Math.max(0, text.search(regex)) : 0;
    const start = Math.max(0, Math.min(at - 60, text.length - GREP_MAX_LINE_CHARS));
    const end = start + GREP_MAX_LINE_CHARS;
    return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
  };
}

/**
 * `include` as an exact filter: a pattern without `/` matches file names anywhere (like grep
 * --include); one with `/` matches the path relative to the searched folder (or to the root).
 */
function includeFilter(include: string | undefined, baseRel: string): (file: string) => boolean {
  if (!include) return () => true;
  if (include.split('/').includes('..')) throw new ToolInputError('include is a file-name glob such as "*.ts" and cannot contain "..".');
  const options = { dot: true, basename: !include.includes('/') };
  const matches = picomatch(include.replace(/^\.\//, ''), options);
  const prefix = baseRel === '.' ? '' : `${baseRel}/`;
  return (file) => matches(file) || (prefix !== '' && file.startsWith(prefix) && matches(file.slice(prefix.length)));
}
