import os from 'node:os';
import path from 'node:path';
import { isInside } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import type { ContextFile } from './context-files.js';

// A context file this long is almost certainly not meant as instructions; keep the request sane.
const MAX_CONTEXT_FILE_CHARS = 40_000;
const MAX_SKILL_DESCRIPTION = 120;

export interface SystemPromptOptions {
  /** The active profile; only its body is used. */
  profile: { systemPrompt: string };
  contextFiles?: ContextFile[];
  /** Skills the model may load: listed by name and description only. */
  skills?: Array<{ name: string; description: string }>;
  workspace: Workspace;
  date?: Date;
  platform?: string;
}

/** The system prompt: profile, environment, context files, then the compact skill list. */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const sections = [options.profile.systemPrompt.trim(), environmentSection(options)];
  const contextFiles = options.contextFiles ?? [];
  if (contextFiles.length > 0) sections.push(contextSection(contextFiles, options.workspace));
  const skills = options.skills ?? [];
  if (skills.length > 0) sections.push(skillsSection(skills));
  return sections.filter((section) => section !== '').join('\n\n');
}

function environmentSection(options: SystemPromptOptions): string {
  const { workspace } = options;
  const lines = [
    '# Environment',
    `Workspace root: ${workspace.root}${workspace.isGit ? ' (git repository)' : ' (not a git repository)'}`,
  ];
  if (workspace.cwd !== workspace.root) lines.push(`Current folder: ${workspace.cwd}`);
  lines.push(`Platform: ${options.platform ?? process.platform}`);
  lines.push(`Date: ${localDate(options.date ?? new Date())}`);
  return lines.join('\n');
}

function contextSection(files: ContextFile[], workspace: Workspace): string {
  const parts = ['# Project instructions', 'Instruction files from the user and the project. Follow them; where they conflict, the later (more specific) file wins.'];
  for (const file of files) {
    const content = file.content.trim();
    const cut = content.length > MAX_CONTEXT_FILE_CHARS ? `${content.slice(0, MAX_CONTEXT_FILE_CHARS)}\n[... cut at ${MAX_CONTEXT_FILE_CHARS} characters]` : content;
    parts.push(`## ${displayPath(file.path, workspace)}\n${cut}`);
  }
  return parts.join('\n\n');
}

function skillsSection(skills: Array<{ name: string; description: string }>): string {
  const lines = ['# Skills', 'Before a task one of these covers, call load_skill with its name and follow it.'];
  for (const skill of skills) lines.push(`- ${skill.name}: ${shorten(skill.description)}`);
  return lines.join('\n');
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_SKILL_DESCRIPTION) return flat;
  return `${flat.slice(0, MAX_SKILL_DESCRIPTION - 1).trimEnd()}…`;
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
