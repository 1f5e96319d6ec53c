// Issue 61 under the SDK protocol: the real Claude Agent SDK drives bin/beans with streaming input.
// The session hosts its scheduled prompts while the program keeps its input open, and the program
// meets them in Claude Code's names: init's tools, the tool_use blocks (ScheduleWakeup with
// delaySeconds, CronCreate, CronList, CronDelete) and the PreToolUse hook's tool_name. A wakeup the
// model asked for brings a turn back with its own init and result, nobody having sent anything.
import { query, type HookCallback, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedServer } from '../support/script.ts';
import { BEANS_BIN, makeTempRepo, scriptedOllama, type TempRepo } from './harness.ts';

const opened: { repo: TempRepo; server: ScriptedServer }[] = [];
afterEach(async () => {
  for (const { repo, server } of opened.splice(0)) {
    await server.close();
    repo.cleanup();
  }
});

type Message = { role: string; content: string };
const messagesOf = (request: RecordedRequest) => (request.body as { messages?: Message[] }).messages ?? [];

/** SDK user messages the test sends when it wants; ended by the test. */
function inputStream() {
  const pending: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  return {
    send(text: string) {
      pending.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' });
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        if (pending.length > 0) yield pending.shift()!;
        else if (done) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

describe('scheduled prompts under the SDK protocol', () => {
  it(
    "a paced /loop: ScheduleWakeup brings the session back after its delay; CronCreate, CronList and CronDelete speak Claude Code's names",
    { timeout: 60_000 },
    async () => {
      let loopId = '';
      const runs: number[] = [];
      const server = await scriptedOllama({
        turns: (request) => {
          const messages = messagesOf(request);
          const last = messages.at(-1)!;
          const runNumber = messages.filter((message) => message.role === 'user' && message.content.startsWith('check the build')).length;
          if (last.role === 'user') {
            runs.push(Date.now());
            loopId = /runs in loop ([0-9a-f]{8})/.exec(last.content)?.[1] ?? loopId;
            if (runNumber === 1) return { toolCalls: [{ name: 'schedule_wakeup', args: { delay_seconds: 10, reason: 'the build is still running' } }] };
            return {
              toolCalls: [
                { name: 'cron_create', args: { cron: '0 3 * * *', prompt: 'nightly look', recurring: false } },
                { name: 'cron_list', args: {} },
              ],
            };
          }
          // After the tool results of a turn.
          if (runNumber === 1) return { text: 'Building; I look again in 10 seconds.' };
          if (!messages.some((message) => message.role === 'tool' && message.content.startsWith('Cancelled')))
            return { toolCalls: [{ name: 'cron_delete', args: { id: loopId } }] };
          return { text: 'The build passed; the loop is over.' };
        },
      });
      const repo = makeTempRepo({});
      opened.push({ repo, server });
      const hooked: { tool_name: string; tool_input: unknown }[] = [];
      const hook: HookCallback = async (input) => {
        hooked.push(input as unknown as { tool_name: string; tool_input: unknown });
        return {};
      };
      const input = inputStream();
      input.send('/loop check the build');
      const seen: SDKMessage[] = [];
      let firstRunEnded = 0;
      for await (const message of query({
        prompt: input,
        options: {
          pathToClaudeCodeExecutable: BEANS_BIN,
          cwd: repo.dir,
          env: { ...repo.env, OLLAMA_HOST: server.url },
          stderr: () => undefined,
          hooks: { PreToolUse: [{ matcher: 'ScheduleWakeup|CronCreate|CronList|CronDelete', hooks: [hook] }] },
        },
      })) {
        seen.push(message);
        const results = seen.filter((candidate) => candidate.type === 'result');
        if (message.type !== 'result') continue;
        if (results.length === 2) firstRunEnded = Date.now();
        // The command's result, the first run's, the second run's: then the program waits, and ends.
        if (results.length === 3) setTimeout(() => input.end(), 3_000);
      }

      const init = seen.find((message) => message.type === 'system' && message.subtype === 'init') as { tools: string[] };
      expect(init.tools).toEqual(expect.arrayContaining(['ScheduleWakeup', 'CronCreate', 'CronList', 'CronDelete']));
      expect(init.tools.filter((name) => /_/.test(name) && !name.startsWith('mcp__'))).toEqual([]);
      const toolUses = seen.flatMap((message) =>
        message.type === 'assistant' ? message.message.content.filter((block) => block.type === 'tool_use').map((block) => [block.name, block.input]) : [],
      );
      expect(toolUses).toEqual([
        ['ScheduleWakeup', { delaySeconds: 10, reason: 'the build is still running' }],
        ['CronCreate', { cron: '0 3 * * *', prompt: 'nightly look', recurring: false }],
        ['CronList', {}],
        ['CronDelete', { id: loopId }],
      ]);
      expect(hooked.map((payload) => payload.tool_name)).toEqual(['ScheduleWakeup', 'CronCreate', 'CronList', 'CronDelete']);
      // CronList's result lists the loop and the new task in Beans' words.
      const listed = JSON.stringify(seen.filter((message) => message.type === 'user'));
      expect(listed).toContain(`${loopId} · loop · paced by schedule_wakeup`);
      expect(listed).toContain('cron \\"0 3 * * *\\" (once)');

      const results = seen
        .filter((message) => message.type === 'result')
        .map((message) => message.type === 'result' && message.subtype === 'success' && message.result);
      expect(results[0]).toContain(`Loop ${loopId}: check the build`);
      expect(results.slice(1)).toEqual(['Building; I look again in 10 seconds.', 'The build passed; the loop is over.']);
      // Each run is a turn with its own init, as one the program sent.
      expect(seen.filter((message) => message.type === 'system' && message.subtype === 'init')).toHaveLength(3);
      // The wakeup came back after the 10 s the model chose, with nothing sent by the program; after CronDelete, no more runs.
      expect(runs).toHaveLength(2);
      const after = runs[1]! - firstRunEnded;
      console.log(`SDK protocol: ScheduleWakeup 10 s brought the loop back ${after} ms after the first run's result`);
      expect(after).toBeGreaterThan(9_000);
      expect(after).toBeLessThan(13_000);
      expect(new Set(seen.map((message) => message.session_id)).size).toBe(1);
    },
  );
});
