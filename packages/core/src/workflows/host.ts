import { readFile, realpath } from '../async-fs.js';
import path from 'node:path';
import { readAgentFile } from '../plugins/agent-file.js';
import { isInside } from '../workspace/paths.js';
import type { AgentSession } from '../runtime/agent-session.js';
import { findSubagent, type SubagentDefinition } from '../subagents/agents.js';
import type { AgentRunner } from './engine.js';
import { WorkflowError, type WorkflowProblem } from './parse.js';
import { turnFallback } from './progress.js';
import { REPORT_PROGRESS_TOOL_NAME } from './report-progress.js';
import type { Step, Workflow } from './types.js';

/** `./agents/x.md`, `../x.md`, `x.md`: a file next to the workflow rather than a plugin agent's name. */
export function isAgentPath(reference: string): boolean {
  return reference.includes('/') || reference.includes('\\') || reference.toLowerCase().endsWith('.md');
}

/**
 * Finds every agent the workflow calls, before anything runs: a plugin agent (`name` or
 * `plugin:name`) of the session, or an agent file next to the workflow. Unknown ones are reported
 * with their line.
 */
export async function resolveWorkflowAgents(
  workflow: Workflow,
  session: Pick<AgentSession, 'subagents'> & { workspace: { root: string } },
): Promise<Map<string, SubagentDefinition>> {
  const found = new Map<string, SubagentDefinition>();
  const problems: WorkflowProblem[] = [];
  // Agent files may live in the workspace, or beside the workflow's folder (a plugin's agents/).
  const roots = await Promise.all([session.workspace.root, path.dirname(path.dirname(workflow.path))].map((dir) => realpath(dir).catch(() => dir)));
  const visit = async (steps: Step[]) => {
    for (const step of steps) {
      if (step.kind === 'call' && !found.has(step.agent)) {
        try {
          found.set(step.agent, await resolveAgent(step.agent, path.dirname(workflow.path), session.subagents, roots));
        } catch (error) {
          problems.push({ line: step.line, message: (error as Error).message });
        }
      }
      if (step.kind === 'parallel') await visit(step.branches);
      if (step.kind === 'loop') await visit(step.steps);
      if (step.kind === 'conditional') await visit([...step.then, ...step.else]);
    }
  };
  await visit(workflow.steps);
  if (problems.length > 0) throw new WorkflowError(workflow.path, problems);
  return found;
}

async function resolveAgent(
  reference: string,
  workflowDir: string,
  subagents: readonly SubagentDefinition[],
  roots: readonly string[],
): Promise<SubagentDefinition> {
  if (!isAgentPath(reference)) {
    const agent = findSubagent(subagents, reference);
    if (agent) return agent;
    const names = subagents.map((candidate) => candidate.name).join(', ');
    throw new Error(`there is no agent "${reference}" (agents: ${names}); name a plugin agent, plugin:name, or a file such as ./agents/${reference}.md`);
  }
  const file = path.resolve(workflowDir, reference);
  const missing = () => new Error(`the agent file ${reference} does not exist next to the workflow (looked for ${file})`);
  const real = await realpath(file).catch(() => Promise.reject(missing()));
  // A repository's workflow must not make a file elsewhere on the machine into a prompt for the model.
  if (!roots.some((root) => isInside(root, real)))
    throw new Error(`the agent file ${reference} is ${real}, outside the workspace and the workflow's folder; keep agent files in the repository`);
  const text = await readFile(real, 'utf8').catch(() => Promise.reject(missing()));
  // A problem with its own skills stops the run before it starts, like any other.
  const agent = readAgentFile(file, text, 'workflow');
  if (agent.skillProblems.length > 0) throw new Error(agent.skillProblems.map((problem) => `${problem.path}: ${problem.message}`).join('; '));
  return {
    name: agent.name,
    description: agent.description ?? '',
    tools: agent.tools,
    model: agent.model,
    ...(agent.ownSkills ? { skills: agent.ownSkills } : {}),
    ...(agent.preloadSkills ? { preloadSkills: agent.preloadSkills } : {}),
    prompt: async () => agent.body,
  };
}

/**
 * Runs `call` steps as subagents of `session` (the `task` tool's runner: same provider, tools,
 * permissions and hooks). The session must offer the report_progress tool (createAgentSession's
 * `tools`); each call gets it even when its agent lists its own tools.
 */
export function sessionAgentRunner(session: Pick<AgentSession, 'runSubagent' | 'onSubagentEvent'>, agents: Map<string, SubagentDefinition>): AgentRunner {
  return {
    async run(call) {
      const known = agents.get(call.agent);
      if (!known) throw new Error(`The agent "${call.agent}" was not resolved before the run.`);
      // A fresh definition object per call: the events of this child, and only them, carry it.
      const definition: SubagentDefinition = { ...known, ...(known.tools ? { tools: [...known.tools, REPORT_PROGRESS_TOOL_NAME] } : {}) };
      let reported = false;
      let turns = 0;
      const stop = session.onSubagentEvent((agent, event) => {
        if (agent !== definition) return;
        if (event.type === 'tool_execution_start' && event.call.name === REPORT_PROGRESS_TOOL_NAME) {
          const percent = Number(event.call.arguments.percent);
          if (!Number.isFinite(percent)) return;
          reported = true;
          const message = event.call.arguments.message;
          call.onProgress(percent, typeof message === 'string' ? message : undefined);
        } else if (event.type === 'turn_end' && !reported) {
          turns++;
          // A final answer is the end of the step; the step completes right after.
          if (event.message.toolCalls.length > 0) call.onProgress(turnFallback(turns));
        }
      });
      try {
        const outcome = await session.runSubagent(definition, call.prompt, call.signal);
        if (outcome.stopReason !== 'completed') throw new Error(outcome.error ?? `the ${definition.name} agent stopped (${outcome.stopReason})`);
        return outcome.finalText;
      } finally {
        stop();
      }
    },
  };
}

/** The runner for a workflow's calls in this session: its agents resolved first (unknown ones reported with their line). */
export function sessionRunnerFor(
  session: Pick<AgentSession, 'runSubagent' | 'onSubagentEvent' | 'subagents'> & { workspace: { root: string } },
): (workflow: Workflow) => Promise<AgentRunner> {
  return async (workflow) => sessionAgentRunner(session, await resolveWorkflowAgents(workflow, session));
}
