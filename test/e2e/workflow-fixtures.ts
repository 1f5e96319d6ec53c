// The release-notes workflow of the local backend's tests, shared with the DBOS backend's tests:
// the same definition, agents and expectations on both.
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { makeTempRepo, type TempRepo } from './harness.ts';

// The example, with JSONata's `$count` for the list's length. Agents come from a plugin
// (`planner`, `team:checker`) and from files next to the workflow (`./agents/...`).
const RELEASE_NOTES = `---
name: release-notes
description: Draft release notes from the git history
inputs:
  since: { description: "tag or commit to start from", default: "HEAD~20" }
output: notes
durability:
  retry: { maxAttempts: 3, backoffMs: 50, backoffMultiplier: 2 }
  maxDurationMs: 600000
steps:
  - call: planner
    weight: 20
    input: { since: "\${input.since}" }
    store: plan
  - parallel:
      - { call: ./agents/writer.md, input: { part: features, plan: "\${plan}" }, store: features }
      - { call: ./agents/writer.md, input: { part: fixes, plan: "\${plan}" }, store: fixes }
    weight: 40
  - loop: { over: "\${plan.items}", as: item }
    steps:
      - { call: "team:checker", input: { item: "\${item}" }, store: "checks[]" }
    weight: 25
  - conditional: "\${$count(checks[ok = false]) > 0}"
    then: [ { call: ./agents/fixer.md, input: { checks: "\${checks}" }, store: fixes } ]
    else: []
    weight: 5
  - transform: "features & '\\n\\n' & fixes"
    store: notes
    weight: 10
---
Plans, writes both parts at once, checks each item, fixes what failed, assembles.
`;

export const agentFile = (name: string, role: string) =>
  `---\nname: ${name}\ndescription: The ${name} of the release notes workflow\ntools: [read_file]\n---\nROLE=${role}. Do your part of the release notes.\n`;

export function releaseRepo(): TempRepo {
  return makeTempRepo({
    '.beans/workflows/release-notes.md': RELEASE_NOTES,
    '.beans/workflows/agents/writer.md': agentFile('writer', 'writer'),
    '.beans/workflows/agents/fixer.md': agentFile('fixer', 'fixer'),
    '.beans/plugins/team/agents/planner.md': agentFile('planner', 'planner'),
    '.beans/plugins/team/agents/checker.md': agentFile('checker', 'checker'),
  });
}

export type Body = { messages: { role: string; content: string }[] };
const roleOf = (request: RecordedRequest) => /ROLE=(\w+)/.exec((request.body as Body).messages[0]?.content ?? '')?.[1] ?? 'unknown';
export const inputOf = (request: RecordedRequest): Record<string, unknown> => {
  const prompt = (request.body as Body).messages.find((message) => message.role === 'user')?.content ?? '';
  const json = /Input \(JSON\):\n([\s\S]*?)\n\nReport/.exec(prompt)?.[1];
  return json ? (JSON.parse(json) as Record<string, unknown>) : {};
};
/** Who was asked what: `planner`, `writer:features`, `checker:b`... */
export const callsOf = (requests: RecordedRequest[]) =>
  requests
    .filter((request) => request.kind === 'chat')
    .map((request) => [roleOf(request), inputOf(request).part ?? inputOf(request).item].filter(Boolean).join(':'));

/** Each agent answers by its system prompt; the planner reports its progress first. */
export function releaseAgents(options: { slowChecker?: () => boolean } = {}) {
  return (request: RecordedRequest, n: number): ScriptTurn => {
    const input = inputOf(request);
    switch (roleOf(request)) {
      case 'planner':
        return n === 0
          ? { toolCalls: [{ name: 'report_progress', args: { percent: 50, message: 'reading history' } }] }
          : { text: '```json\n{"items": ["a", "b", "c"]}\n```' };
      case 'writer':
        return { text: `${String(input.part)} written` };
      case 'checker':
        if (input.item === 'b' && options.slowChecker?.()) return { text: ['{"item": "b",', ' "ok": false}'], chunkDelayMs: 5000 };
        return { text: JSON.stringify({ item: input.item, ok: input.item !== 'b' }) };
      case 'fixer':
        return { text: `fixed ${(input.checks as { ok: boolean }[]).filter((check) => !check.ok).length} item(s)` };
      default:
        return { text: 'unexpected agent' };
    }
  };
}

export const ollamaEnv = (url: string) => ({ OLLAMA_HOST: url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' });
