import { readdir, readFile, realpath, stat } from '../async-fs.js';
import { isInside } from '../workspace/paths.js';
import path from 'node:path';
import * as z from 'zod';
import { BUILTIN_PARAMETERS } from '../tools/builtin-parameters.generated.js';
import { defineTool, usePrecomputedParameters, type Tool } from '../tools/tool.js';
import { BUILTIN_COMMAND_NAMES, parseSlashInput } from './commands.js';
import type { PluginCatalog, SkillEntry } from './types.js';
import { lazily } from '../lazily.js';

// Enough to show the shape of a skill folder without flooding the context.
const MAX_LISTED_FILES = 40;
const MAX_FILE_CHARS = 100_000;

/**
 * A skill's body as the model receives it, with where its folder is. Beans' file tools stay inside
 * the workspace and built-in skills live outside it, so files beside a skill are read through
 * load_skill itself (`skill/references/x.md`).
 */
export async function renderSkill(skill: SkillEntry): Promise<string> {
  const body = await skill.loadBody();
  const lines = [`# Skill: ${skill.name} (${skill.agent ? `agent ${skill.agent}` : `plugin ${skill.plugin}`})`];
  if (skill.ownFolder) {
    const files = await listSkillFiles(skill.dir);
    lines.push(`Skill folder: ${skill.dir}`);
    if (files.length > 0) {
      lines.push(`Files in it: ${files.join(', ')}`);
      lines.push(`Read one with load_skill {"name": "${skill.name}/${files[0]}"}; run a script with shell by its full path.`);
    }
  } else {
    lines.push(`Skill file: ${skill.path}`);
  }
  return `${lines.join('\n')}\n\n${body}`;
}

async function listSkillFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !/^skill\.md$/i.test(file) && !file.split('/').some((part) => part.startsWith('.')))
    .sort()
    .slice(0, MAX_LISTED_FILES);
}

/** The `load_skill` tool: a skill's full body by name, or one file from its folder. */
const loadSkillInput = lazily(() => z.object({ name: z.string() }));
usePrecomputedParameters(loadSkillInput, BUILTIN_PARAMETERS.load_skill);

export function createLoadSkillTool(catalog: PluginCatalog): Tool<{ name: string }> {
  return defineTool({
    name: 'load_skill',
    description: 'Load a listed skill\'s instructions by name; "skill/path" reads a file from its folder.',
    kind: 'meta',
    schema: loadSkillInput,
    ruleSubject: (input) => input.name,
    summarize: (input) => input.name,
    async execute(input) {
      const wanted = input.name.trim().replace(/^\//, '');
      const skill = catalog.findSkill(wanted);
      if (skill?.disableModelInvocation) {
        return { content: `Skill "${skill.name}" is marked disable-model-invocation: only the user can run it, as /${skill.name}.`, isError: true };
      }
      if (skill) return { content: await renderSkill(skill) };
      const slash = wanted.indexOf('/');
      const owner = slash > 0 ? catalog.findSkill(wanted.slice(0, slash)) : undefined;
      if (owner) return readSkillFile(owner, wanted.slice(slash + 1));
      return { content: unknownSkillMessage(wanted, catalog), isError: true };
    },
  });
}

function unknownSkillMessage(name: string, catalog: PluginCatalog): string {
  const known = catalog
    .skills()
    .filter((skill) => !skill.disableModelInvocation)
    .map((skill) => skill.name);
  if (known.length === 0) return `Unknown skill "${name}": no skills are installed.`;
  return `Unknown skill "${name}". Known skills: ${known.join(', ')}.`;
}

async function readSkillFile(skill: SkillEntry, relative: string): Promise<{ content: string; isError?: boolean }> {
  const target = path.resolve(skill.dir, relative);
  const inside = target.startsWith(skill.dir + path.sep);
  if (!skill.ownFolder || !inside) {
    return { content: `"${relative}" is not a file in the folder of skill "${skill.name}".`, isError: true };
  }
  // A link inside the skill's folder may lead anywhere: the file itself must be inside.
  const refusal = await realOutside(target, skill.dir);
  if (refusal) return { content: `"${relative}" ${refusal}; it cannot be read as part of skill "${skill.name}".`, isError: true };
  try {
    if (!(await stat(target)).isFile()) throw new Error('not a file');
    const text = await readFile(target, 'utf8');
    const cut = text.length > MAX_FILE_CHARS ? `${text.slice(0, MAX_FILE_CHARS)}\n[... cut at ${MAX_FILE_CHARS} characters]` : text;
    return { content: `# ${skill.name}/${relative}\n\n${cut}` };
  } catch {
    const files = await listSkillFiles(skill.dir);
    const list = files.length > 0 ? ` Files in it: ${files.join(', ')}.` : ' Its folder has no other files.';
    return { content: `Skill "${skill.name}" has no file "${relative}".${list}`, isError: true };
  }
}

/**
 * Skills whose `triggers:` phrases occur in the user's message: case-insensitive, whole words,
 * any run of whitespace matching a space in the phrase.
 */
export function skillsTriggeredBy(text: string, catalog: PluginCatalog): SkillEntry[] {
  const asciiLower = ASCII.test(text) ? text.toLowerCase() : undefined;
  return catalog.skills().filter((skill) => skill.triggers.some((phrase) => mayOccur(phrase, asciiLower) && phraseRegExp(phrase)?.test(text)));
}

const ASCII = /^\p{ASCII}*$/u;

// Each phrase's Unicode-aware expression costs a compile on its first test; most messages contain
// none of a phrase's words, which plain lowercase search tells cheaply. For ASCII text and phrase
// that search is exact; for any other, the expression decides (Unicode case folding differs).
function mayOccur(phrase: string, asciiLowerText: string | undefined): boolean {
  if (asciiLowerText === undefined || !ASCII.test(phrase)) return true;
  return phrase
    .toLowerCase()
    .split(/\s+/)
    .every((word) => asciiLowerText.includes(word));
}

function phraseRegExp(phrase: string): RegExp | undefined {
  const words = phrase.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  const body = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`, 'iu');
}

/** What the session prepends (as a `skill`-origin user message) when a trigger phrase matched. */
export async function triggeredSkillMessage(skill: SkillEntry): Promise<string> {
  return `The user's message matches the "${skill.name}" skill; follow it where it applies.\n\n${await renderSkill(skill)}`;
}

export interface SkillInvocation {
  prompt: string;
  display: string;
  skill: SkillEntry;
}

/**
 * `/skill-name args` loads the skill as the user's request. Built-in commands and plugin commands
 * of the same name win, so this is undefined for them.
 */
export async function skillInvocation(
  text: string,
  catalog: PluginCatalog,
  builtinNames: readonly string[] = BUILTIN_COMMAND_NAMES,
): Promise<SkillInvocation | undefined> {
  const input = parseSlashInput(text);
  if (!input) return undefined;
  if (!input.name.includes(':') && builtinNames.includes(input.name)) return undefined;
  if (catalog.findCommand(input.name)) return undefined;
  const skill = catalog.findSkill(input.name);
  if (!skill) return undefined;
  const request = input.args === '' ? 'The user asked for this skill without further details.' : `The user's request: ${input.args}`;
  const prompt = `Use the "${skill.name}" skill for this request.\n\n${await renderSkill(skill)}\n\n${request}`;
  return { prompt, display: text.trim(), skill };
}

async function realOutside(target: string, dir: string): Promise<string | undefined> {
  try {
    const [real, realDir] = await Promise.all([realpath(target), realpath(dir)]);
    return isInside(realDir, real) ? undefined : "leads outside the skill's folder";
  } catch {
    return undefined; // missing: the caller says so
  }
}
