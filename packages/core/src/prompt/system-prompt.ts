import os from 'node:os';
import path from 'node:path';
import { isInside } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import type { ContextFile } from './context-files.js';

// A context file this long is almost certainly not meant as instructions; keep the request sane.
const MAX_CONTEXT_FILE_CHARS = 40_000;
// Claude Code's cap for one skill's listing text; longer ones are cut there too.
const MAX_SKILL_DESCRIPTION = 1536;

export interface ListedSkill {
  name: string;
  description: string;
  /** Only the user may run it; the model is not told about it. */
  disableModelInvocation?: boolean;
}

export interface SystemPromptOptions {
  /** The active profile; only its body is used. */
  profile: { systemPrompt: string };
  contextFiles?: ContextFile[];
  /** Skills the model may load: listed by name and description only. */
  skills?: ListedSkill[];
  /** Told once when descriptions had to be cut. */
  warn?: (message: string) => void;
  workspace: Workspace;
  date?: Date;
  platform?: string;
}

/** The system prompt: profile, environment, context files, then the compact skill list. */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const sections = [options.profile.systemPrompt.trim(), environmentSection(options)];
  const contextFiles = options.contextFiles ?? [];
  if (contextFiles.length > 0) sections.push(contextSection(contextFiles, options.workspace));
  const skills = (options.skills ?? []).filter((skill) => skill.disableModelInvocation !== true);
  if (skills.length > 0) sections.push(skillsSection(skills, options.warn));
  return sections.filter((section) => section !== '').join('\n\n');
}

function environmentSection(options: SystemPromptOptions): string {
  const { workspace } = options;
  const lines = ['# Environment', `Workspace root: ${workspace.root}${workspace.isGit ? ' (git repository)' : ' (not a git repository)'}`];
  if (workspace.cwd !== workspace.root) lines.push(`Current folder: ${workspace.cwd}`);
  lines.push(`Platform: ${options.platform ?? process.platform}`);
  lines.push(`Date: ${localDate(options.date ?? new Date())}`);
  return lines.join('\n');
}

function contextSection(files: ContextFile[], workspace: Workspace): string {
  const parts = [
    '# Project instructions',
    'Instruction files from the user and the project. Follow them; where they conflict, the later (more specific) file wins.',
  ];
  for (const file of files) {
    const content = file.content.trim();
    const cut =
      content.length > MAX_CONTEXT_FILE_CHARS ? `${content.slice(0, MAX_CONTEXT_FILE_CHARS)}\n[... cut at ${MAX_CONTEXT_FILE_CHARS} characters]` : content;
    parts.push(`## ${file.label ?? displayPath(file.path, workspace)}\n${cut}`);
  }
  return parts.join('\n\n');
}

function skillsSection(skills: ListedSkill[], warn: ((message: string) => void) | undefined): string {
  const lines = ['# Skills', 'Before a task one of these covers, call load_skill with its name and follow it.'];
  const cut: string[] = [];
  for (const skill of skills) {
    const flat = skill.description.replace(/\s+/g, ' ').trim();
    if (flat.length <= MAX_SKILL_DESCRIPTION) {
      lines.push(`- ${skill.name}: ${flat}`);
      continue;
    }
    cut.push(skill.name);
    lines.push(`- ${skill.name}: ${flat.slice(0, MAX_SKILL_DESCRIPTION - 1)}…`);
  }
  if (cut.length > 0) warn?.(`The descriptions of skills ${cut.join(', ')} were cut at ${MAX_SKILL_DESCRIPTION} characters in the system prompt.`);
  return lines.join('\n');
}

function displayPath(file: string, workspace: Workspace): string {
  const relative = path.relative(workspace.root, file);
  if (relative !== '' && isInside(workspace.root, file)) return relative.split(path.sep).join('/');
  const home = os.homedir();
  return home && file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
}

function localDate(date: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
