import { readFile } from '../async-fs.js';
import path from 'node:path';
import * as z from 'zod';
import { commonJsExports } from '../common-js.js';
import { UsageError } from '../errors.js';
import { splitFrontmatter } from '../plugins/frontmatter.js';
import { checkTemplates, compileExpression, expressionOf, ExpressionSyntaxError, usesLengthField } from './expressions.js';
import type { WorkflowRetry, Step, StoreTarget, Workflow, WorkflowInput } from './types.js';
import { PARSE_ONCE } from '../parse-once.js';

export const DEFAULT_RETRY: WorkflowRetry = { maxAttempts: 1, backoffMs: 1000, backoffMultiplier: 2 };
const STEP_KINDS = ['call', 'parallel', 'loop', 'conditional', 'transform'] as const;

export interface WorkflowProblem {
  line: number;
  message: string;
}

/** A workflow file that cannot run: every problem with its line, found before anything ran. */
export class WorkflowError extends UsageError {
  constructor(
    readonly file: string,
    readonly problems: WorkflowProblem[],
  ) {
    const lines = problems.map((problem) => `${file}:${problem.line}: ${problem.message}`);
    super(`The workflow is not valid:\n${lines.join('\n')}\nFix the file and run it again.`);
  }
}

const identifier = z.string().regex(/^[A-Za-z_]\w*$/, 'use letters, digits and "_", starting with a letter');
const storeSchema = z.string().regex(/^[A-Za-z_]\w*(\[\])?$/, 'name an artifact, e.g. `plan`, or `checks[]` to append to a list');
const weightSchema = z.number().min(0, 'a weight is 0 or more').optional();
const retrySchema = z.strictObject({
  maxAttempts: z.int().min(1).max(20).optional(),
  backoffMs: z.number().min(0).optional(),
  backoffMultiplier: z.number().min(1).optional(),
});
const common = { weight: weightSchema, name: z.string().min(1).optional() };
const stepSchemas = {
  call: z.strictObject({
    call: z.string().trim().min(1, 'name an agent'),
    input: z.unknown().optional(),
    store: storeSchema.optional(),
    retry: retrySchema.optional(),
    ...common,
  }),
  parallel: z.strictObject({ parallel: z.array(z.unknown()).min(1, 'list at least one branch'), ...common }),
  loop: z.strictObject({
    loop: z.strictObject({ over: z.union([z.string().min(1), z.array(z.unknown())]), as: identifier.optional() }),
    steps: z.array(z.unknown()).min(1, 'a loop needs steps'),
    ...common,
  }),
  conditional: z.strictObject({
    conditional: z.union([z.string().min(1), z.boolean()]),
    then: z.array(z.unknown()),
    else: z.array(z.unknown()).optional(),
    ...common,
  }),
  transform: z.strictObject({ transform: z.string().min(1), store: storeSchema.optional(), ...common }),
};
const topSchema = z.strictObject({
  name: z.string().trim().min(1).optional(),
  description: z.string().optional(),
  inputs: z
    .record(identifier, z.strictObject({ description: z.string().optional(), default: z.unknown().optional(), required: z.boolean().optional() }))
    .optional(),
  output: identifier.optional(),
  durability: z.strictObject({ retry: retrySchema.optional(), maxDurationMs: z.int().positive().optional() }).optional(),
  steps: z.array(z.unknown()).min(1, 'a workflow needs at least one step'),
});

type Path = (string | number)[];
type YamlModule = typeof import('yaml');
type Located = { line(at: Path): number };

/** Reads and checks a WORKFLOW.md file. */
export async function loadWorkflowFile(file: string): Promise<Workflow> {
  const absolute = path.resolve(file);
  let source: string;
  try {
    source = await readFile(absolute, 'utf8');
  } catch {
    throw new UsageError(`Cannot read the workflow ${file}. Check the path, or run \`beans workflow list\` to see the workflows you have.`);
  }
  return parseWorkflow(source, absolute);
}

/** Parses a workflow's frontmatter and checks its shape and every expression; throws WorkflowError. */
export async function parseWorkflow(source: string, file: string): Promise<Workflow> {
  const split = splitFrontmatter(source);
  if (split.yaml === undefined || split.unclosed) {
    throw new WorkflowError(file, [{ line: 1, message: 'a workflow starts with YAML frontmatter between two `---` lines' }]);
  }
  // The YAML begins on the line after the opening `---`.
  const firstLine = source.slice(0, source.indexOf(split.yaml)).split('\n').length;
  const yaml: YamlModule = commonJsExports(await import('yaml'));
  const counter = new yaml.LineCounter();
  const document = yaml.parseDocument(split.yaml, { lineCounter: counter });
  const toLine = (offset: number) => counter.linePos(offset).line + firstLine - 1;
  if (document.errors.length > 0) {
    throw new WorkflowError(
      file,
      document.errors.map((error) => ({ line: toLine(error.pos[0]), message: error.message.split('\n')[0] })),
    );
  }
  const located: Located = {
    line(at) {
      for (let length = at.length; length >= 0; length--) {
        const node = document.getIn(at.slice(0, length), true) as { range?: [number, number, number] } | undefined;
        if (node?.range) return toLine(node.range[0]);
      }
      return firstLine;
    },
  };
  const problems: WorkflowProblem[] = [];
  const top = topSchema.safeParse(document.toJS(), PARSE_ONCE);
  if (!top.success) {
    throw new WorkflowError(file, zodProblems(top.error, [], located));
  }
  const data = top.data;
  const retry: WorkflowRetry = { ...DEFAULT_RETRY, ...definedOnly(data.durability?.retry ?? {}) };
  const steps = await parseSteps(data.steps, ['steps'], located, problems);
  const stores = new Set<string>();
  collectStores(steps, stores);
  if (data.output && !stores.has(data.output)) {
    problems.push({
      line: located.line(['output']),
      message: `output names "${data.output}", but no step stores it (stored: ${[...stores].join(', ') || 'nothing'})`,
    });
  }
  if (problems.length > 0) throw new WorkflowError(file, problems);
  const inputs: Record<string, WorkflowInput> = {};
  for (const [name, input] of Object.entries(data.inputs ?? {})) {
    inputs[name] = { description: input.description, default: input.default, required: input.required ?? input.default === undefined };
  }
  return {
    name: data.name ?? path.basename(file).replace(/\.md$/i, ''),
    description: data.description,
    path: file,
    source,
    inputs,
    output: data.output,
    retry,
    maxDurationMs: data.durability?.maxDurationMs,
    steps,
  };
}

async function parseSteps(raw: unknown[], at: Path, located: Located, problems: WorkflowProblem[]): Promise<Step[]> {
  const steps: Step[] = [];
  for (const [index, item] of raw.entries()) {
    const step = await parseStep(item, [...at, index], located, problems);
    if (step) steps.push(step);
  }
  return steps;
}

async function parseStep(raw: unknown, at: Path, located: Located, problems: WorkflowProblem[]): Promise<Step | undefined> {
  const line = located.line(at);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({ line, message: 'a step is a mapping such as `{ call: agent }`' });
    return undefined;
  }
  const kinds = STEP_KINDS.filter((kind) => kind in raw);
  if (kinds.length !== 1) {
    problems.push({
      line,
      message: kinds.length === 0 ? `a step needs one of ${STEP_KINDS.join(', ')}` : `a step has both ${kinds.join(' and ')}; make them separate steps`,
    });
    return undefined;
  }
  const kind = kinds[0];
  const parsed = stepSchemas[kind].safeParse(raw, PARSE_ONCE);
  if (!parsed.success) {
    problems.push(...zodProblems(parsed.error, at, located));
    return undefined;
  }
  const value = parsed.data;
  const base = { weight: value.weight ?? 1, line };
  const checkExpression = async (text: string, where: Path, whole: boolean) => {
    try {
      if (whole) await compileExpression(expressionOf(text).expression);
      else await checkTemplates(text);
    } catch (error) {
      if (!(error instanceof ExpressionSyntaxError)) throw error;
      problems.push({ line: located.line(where), message: `the expression ${JSON.stringify(text)} is not valid JSONata: ${error.message}` });
      return;
    }
    if (whole && (await usesLengthField(expressionOf(text).expression))) {
      problems.push({
        line: located.line(where),
        message: `the expression ${JSON.stringify(text)} reads a field named "length", which JSONata lists and strings do not have (it yields nothing, so a comparison with it is always false): use $count(list) or $length(text)`,
      });
    }
  };
  switch (kind) {
    case 'call': {
      const call = value as z.infer<typeof stepSchemas.call>;
      try {
        await checkTemplates(call.input);
      } catch (error) {
        if (!(error instanceof ExpressionSyntaxError)) throw error;
        problems.push({ line: located.line([...at, 'input']), message: `an input template is not valid JSONata: ${error.message}` });
      }
      return {
        kind,
        ...base,
        label: call.name ?? agentLabel(call.call),
        agent: call.call,
        input: call.input,
        store: storeTarget(call.store),
        ...(call.retry ? { retry: { ...DEFAULT_RETRY, ...definedOnly(call.retry) } } : {}),
      };
    }
    case 'parallel': {
      const parallel = value as z.infer<typeof stepSchemas.parallel>;
      return { kind, ...base, label: parallel.name ?? 'parallel', branches: await parseSteps(parallel.parallel, [...at, 'parallel'], located, problems) };
    }
    case 'loop': {
      const loop = value as z.infer<typeof stepSchemas.loop>;
      if (typeof loop.loop.over === 'string') await checkExpression(loop.loop.over, [...at, 'loop', 'over'], true);
      const as = loop.loop.as ?? 'item';
      if (as === 'input')
        problems.push({
          line: located.line([...at, 'loop', 'as']),
          message: '"input" is taken by the workflow\'s inputs; pick another name for the loop variable',
        });
      return {
        kind,
        ...base,
        label: loop.name ?? `loop over ${as}`,
        over: loop.loop.over,
        as,
        steps: await parseSteps(loop.steps, [...at, 'steps'], located, problems),
      };
    }
    case 'conditional': {
      const conditional = value as z.infer<typeof stepSchemas.conditional>;
      if (typeof conditional.conditional === 'string') await checkExpression(conditional.conditional, [...at, 'conditional'], true);
      return {
        kind,
        ...base,
        label: conditional.name ?? 'conditional',
        condition: String(conditional.conditional),
        then: await parseSteps(conditional.then, [...at, 'then'], located, problems),
        else: await parseSteps(conditional.else ?? [], [...at, 'else'], located, problems),
      };
    }
    case 'transform': {
      const transform = value as z.infer<typeof stepSchemas.transform>;
      await checkExpression(transform.transform, [...at, 'transform'], true);
      const store = storeTarget(transform.store);
      return { kind, ...base, label: transform.name ?? `transform${store ? ` to ${store.name}` : ''}`, expression: transform.transform, store };
    }
  }
}

function zodProblems(error: z.ZodError, at: Path, located: Located): WorkflowProblem[] {
  return error.issues.map((issue) => {
    const where = [...at, ...(issue.path as Path)];
    const key = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    const message = issue.code === 'unrecognized_keys' ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : issue.message;
    return { line: located.line(where), message: `${key}${message}` };
  });
}

/** `./agents/writer.md` and `team:writer` show as `writer` in progress lines. */
function agentLabel(reference: string): string {
  const base = reference.split(/[\\/]/).pop() ?? reference;
  return base.replace(/\.md$/i, '').split(':').pop() || reference;
}

function storeTarget(store: string | undefined): StoreTarget | undefined {
  if (!store) return undefined;
  return store.endsWith('[]') ? { name: store.slice(0, -2), append: true } : { name: store, append: false };
}

function collectStores(steps: Step[], into: Set<string>): void {
  for (const step of steps) {
    if ((step.kind === 'call' || step.kind === 'transform') && step.store) into.add(step.store.name);
    if (step.kind === 'parallel') collectStores(step.branches, into);
    if (step.kind === 'loop') collectStores(step.steps, into);
    if (step.kind === 'conditional') collectStores([...step.then, ...step.else], into);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
