export * from './agent/index.js';
export * from './llm/index.js';
export * from './errors.js';
export * from './tools/index.js';
export * from './permissions/index.js';
export { resolveWorkspace, findGitRoot, type Workspace } from './workspace/workspace.js';
export { gitBranch } from './workspace/git-branch.js';
export * from './plugins/index.js';
export * from './prompt/index.js';
export * from './config/index.js';
export * from './session/index.js';
export { resolveInWorkspace, OutsideWorkspaceError, type WorkspacePath } from './workspace/paths.js';
export { expandHome } from './config/paths.js';
export * from './runtime/index.js';
export { VERSION } from './version.js';
export { withFileLock, type FileLockOptions } from './file-lock.js';
export * from './protocol/index.js';
export * from './claude/index.js';
export { mcpTools, mcpResult, mcpToolName, type McpToolInfo } from './mcp/mcp-tools.js';
export {
  createShellSandbox,
  describeSandboxUnixSockets,
  sandboxReadDenials,
  SandboxRefusedError,
  SandboxUnavailableError,
  type ShellSandbox,
  type UnixSocketSettings,
  type UnixSocketStatus,
  type ShellSandboxOptions,
  type SandboxedCommand,
} from './sandbox/index.js';
export * from './hooks/index.js';
export * from './guardrails/index.js';
export * from './memory/index.js';
export { collectMcpServers, type McpSources, type CollectedMcpServers } from './mcp/collect-servers.js';
export { collectLspServers, type LspSources, type CollectedLspServers } from './lsp/collect.js';
export { commandLineOf, type LspServerDeclaration } from './lsp/declarations.js';
export type { LspServerStatus, LspServerState } from './lsp/manager.js';
export { loadMcpConfigFile, loadMcpConfigArgument, parseMcpServers, type McpServerEntry, type McpServerConfig } from './mcp/mcp-config.js';
export type { McpServerStatus, McpServerSet, McpSetServersResult } from './mcp/mcp-servers.js';
export * from './checkpoints/index.js';
