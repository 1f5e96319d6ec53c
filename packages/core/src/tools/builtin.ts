import { editFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { listDirectoryTool } from './list-directory.js';
import { notebookEditTool } from './notebook-edit.js';
import { memoryTool } from '../memory/memory-tool.js';
import { readFileTool } from './read-file.js';
import { killShellTool } from './kill-shell.js';
import { shellOutputTool } from './shell-output.js';
import { shellTool } from './shell.js';
import { todoWriteTool } from './todo-write.js';
import { SCHEDULE_TOOLS } from './schedule-tools.js';
import { BUILTIN_PARAMETERS } from './builtin-parameters.generated.js';
import { schemaSource, usePrecomputedParameters, type AnyTool } from './tool.js';
import { createWebFetchTool, type WebFetchOptions } from './web-fetch.js';
import { writeFileTool } from './write-file.js';

export interface BuiltinToolOptions {
  /** The `webFetch` settings: private addresses, timeout, size cap. */
  webFetch?: WebFetchOptions;
}

/** The built-in tools in the contract's order (load_skill comes from the plugins layer). */
export function builtinTools(options: BuiltinToolOptions = {}): AnyTool[] {
  return [
    readFileTool,
    writeFileTool,
    editFileTool,
    notebookEditTool,
    shellTool,
    shellOutputTool,
    killShellTool,
    globTool,
    grepTool,
    listDirectoryTool,
    todoWriteTool,
    createWebFetchTool(options.webFetch),
    memoryTool,
    ...SCHEDULE_TOOLS,
  ];
}

for (const tool of builtinTools()) {
  const source = schemaSource(tool);
  if (source) usePrecomputedParameters(source, BUILTIN_PARAMETERS[tool.name]);
}
