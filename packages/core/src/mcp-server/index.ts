// `@beans/core/mcp-server`: Beans as an MCP server (`beans mcp serve`). Loaded only by that command,
// so the MCP SDK's server side never reaches another start.
export { createBeansMcpConnection, type BeansMcpConnection, type BeansMcpServerOptions } from './beans-mcp-server.js';
export { openToolSession } from './tool-session.js';
