export * from './tool.js';
export { ToolRegistry } from './registry.js';
export { readFileTool } from './read-file.js';
export { writeFileTool } from './write-file.js';
export { editFileTool } from './edit-file.js';
export { notebookEditTool } from './notebook-edit.js';
export { shellTool, SHELL_DEFAULT_TIMEOUT_MS, SHELL_MAX_TIMEOUT_MS } from './shell.js';
export { globTool } from './glob.js';
export { grepTool } from './grep.js';
export { listDirectoryTool } from './list-directory.js';
export { todoWriteTool } from './todo-write.js';
export { builtinTools, type BuiltinToolOptions } from './builtin.js';
export { createWebFetchTool, WEB_FETCH_DEFAULTS, WEB_FETCH_CACHE_MS, type WebFetchOptions } from './web-fetch.js';
export { walkFiles, type WalkedFile } from './file-walk.js';
export { plural } from './text.js';
export { validateToolInput, type InputCheck } from './validate-input.js';
export { toolEnvironment, PROVIDER_KEY_VARIABLES, type ToolEnvironmentOptions } from './tool-env.js';
export type { EditorFiles } from './editor-files.js';
export type { EditorTerminal, EditorTerminalRequest, EditorTerminalResult } from './tool.js';
export { shellOutputTool } from './shell-output.js';
export { killShellTool } from './kill-shell.js';
export {
  BackgroundTasks,
  BackgroundTaskError,
  DEFAULT_MAX_BACKGROUND_TASKS,
  describeEnd,
  formatDuration,
  type BackgroundTaskInfo,
  type BackgroundTaskState,
  type BackgroundTaskRead,
} from './background-tasks.js';
export { describeTask, formatInterval, type ScheduledTask, type ScheduleBoard } from './schedule-tools.js';
