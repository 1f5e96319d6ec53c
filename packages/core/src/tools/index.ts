export * from './tool.js';
export { ToolRegistry } from './registry.js';
