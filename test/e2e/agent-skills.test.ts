// An agent's own skills through the built `bin/beans`: the scripted Ollama server serves the parent
// and the planner child by their system prompts, and the test reads what each request carried.
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptTurn } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

type ChatBody = { messages: { role: string; content: string }[] };
const messagesOf = (request: RecordedRequest) => (request.body as ChatBody).messages;
const systemOf = (request: RecordedRequest) => messagesOf(request).find((m) => m.role === 'system')?.content ?? '';
const toolResults = (request: RecordedRequest) =>
  messagesOf(request)
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);

const PLANNER = '---\nname: planner\ndescription: Plans work.\nskills:\n  expose: [estimate]\n---\nPLANNER: plan what you are asked.\n';
const ESTIMATE = '---\nname: estimate\ndescription: Estimates effort in days.\n---\nESTIMATE: one day per step.\n';
const SECRET = '---\ndescription: How the planner splits work.\n---\nSECRET: split by folder.\n';

describe("an agent's own skills", () => {
  it('are private to the child, and the exposed one reaches the parent as planner:estimate', async () => {
    const repo = makeTempRepo({
      'plugins/work/agents/planner.md': PLANNER,
      'plugins/work/agents/planner/skills/estimate/SKILL.md': ESTIMATE,
      'plugins/work/agents/planner/skills/secret-plan.md': SECRET,
    });
    const server = await scriptedOllama({
      turns: (request, n): ScriptTurn => {
        if (systemOf(request).startsWith('PLANNER')) {
          return n === 0 ? { toolCalls: [{ name: 'load_skill', args: { name: 'secret-plan' } }] } : { text: 'split by folder' };
        }
        if (n === 0) return { toolCalls: [{ name: 'load_skill', args: { name: 'planner:estimate' } }] };
        if (n === 1) return { toolCalls: [{ name: 'task', args: { description: 'plan', prompt: 'plan the work', subagent_type: 'planner' } }] };
        return { text: 'planned' };
      },
    });
    const run = await runBeans(['-p', 'plan it', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_MODEL: 'qwen3' } });
    expect(run.code, run.stderr).toBe(0);

    const chats = server.requests.filter((request) => request.kind === 'chat');
    const parent = chats.filter((request) => !systemOf(request).startsWith('PLANNER'));
    const child = chats.filter((request) => systemOf(request).startsWith('PLANNER'));
    expect(systemOf(parent[0]!)).toContain('- planner:estimate: Estimates effort in days.');
    expect(systemOf(parent[0]!)).not.toContain('secret-plan');
    expect(toolResults(parent[1]!)[0]).toContain('ESTIMATE: one day per step.');

    expect(systemOf(child[0]!)).toContain('- secret-plan: How the planner splits work.');
    expect(systemOf(child[0]!)).toContain('- estimate: Estimates effort in days.');
    expect(toolResults(child[1]!)[0]).toContain('SECRET: split by folder.');
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'planned' });
  }, 60_000);

  it('are shown by beans plugins list under their agent, with an exposed name it lacks as a problem', async () => {
    const repo = makeTempRepo({
      'plugins/work/agents/planner.md': PLANNER.replace('expose: [estimate]', 'expose: [estimate, guess]'),
      'plugins/work/agents/planner/skills/estimate/SKILL.md': ESTIMATE,
      'plugins/work/agents/planner/skills/secret-plan.md': SECRET,
    });
    const run = await runBeans(['plugins', 'list'], { cwd: repo.dir, env: repo.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('      own skills: estimate (exposed as planner:estimate), secret-plan');
    expect(run.stdout).toMatch(/agents\/planner\.md: skills\.expose names "guess", which is not one of its own skills \(planner\/skills\/\); ignored/);
    expect(run.stdout).not.toMatch(/^ {4}(estimate|secret-plan)\b/m);
  }, 60_000);
});
