export * from './agent/index.js';
export * from './llm/index.js';
export * from './errors.js';
export * from './tools/index.js';
export * from './permissions/index.js';
export { resolveWorkspace, findGitRoot, type Workspace } from './workspace/workspace.js';
export * from './plugins/index.js';
export * from './prompt/index.js';
export * from './config/index.js';
