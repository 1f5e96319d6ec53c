export { memoryTool } from './memory-tool.js';
export {
  MEMORY_FILE,
  appendMemoryFact,
  appendNote,
  isMemoryNote,
  memoryFiles,
  noteTargetPath,
  saveNote,
  type MemoryFileInfo,
  type MemoryLocations,
  type NoteTarget,
} from './memory-file.js';
export { fileMemoryStore, memoryStoreText } from './file-memory-store.js';
export type { MemoryStore } from './memory-store.js';
