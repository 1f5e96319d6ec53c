export { CONTEXT_FILE_NAMES, loadContextFiles, type ContextFile, type LoadContextFilesOptions } from './context-files.js';
export { buildSystemPrompt, type ListedSkill, type SystemPromptOptions } from './system-prompt.js';
