import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AssistantMessage, ToolResultMessage, UserMessage } from '../../src/agent/types.js';

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-sessions-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let clock = 1_700_000_000_000;
const tick = () => clock++;

export const user = (content: string, extra: Partial<UserMessage> = {}): UserMessage => ({
  role: 'user',
  content,
  origin: 'prompt',
  timestamp: tick(),
  ...extra,
});

export const assistant = (content: string, calls: { id: string; name: string; arguments?: Record<string, unknown> }[] = []): AssistantMessage => ({
  role: 'assistant',
  content,
  toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments ?? {} })),
  stopReason: calls.length > 0 ? 'tool_use' : 'stop',
  usage: { inputTokens: 10, outputTokens: 5, costUsd: 0 },
  timestamp: tick(),
});

export const toolResult = (toolCallId: string, toolName: string, content = 'ok'): ToolResultMessage => ({
  role: 'tool',
  toolCallId,
  toolName,
  content,
  isError: false,
  status: 'ok',
  timestamp: tick(),
});

export const header = { cwd: '/work/repo/src', workspaceRoot: '/work/repo', provider: 'ollama', model: 'qwen3' };
