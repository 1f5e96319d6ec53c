export * from './types.js';
export { registerProvider, getProvider, listProviders } from './registry.js';
export { collectStream, type StreamFn } from './collect.js';
