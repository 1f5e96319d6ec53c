import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listDirectoryTool } from './list-directory.js';
import { readFileTool } from './read-file.js';
import { shellTool } from './shell.js';
import { todoWriteTool } from './todo-write.js';
import type { AnyTool } from './tool.js';
import { writeFileTool } from './write-file.js';

/** The built-in tools in the contract's order (load_skill comes from the plugins layer). */
export function builtinTools(): AnyTool[] {
  return [readFileTool, writeFileTool, editFileTool, shellTool, globTool, grepTool, listDirectoryTool, todoWriteTool];
}
