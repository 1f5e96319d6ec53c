import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { receives, rootParts, rootProgram } from './root-parts.ts';

// Issue 28: the composition root stays a short sequence of named parts. A capability that needs more
// than a line in buildAgentSession, or a part that grows past 120 lines, is split before it lands.
const runtime = path.resolve(import.meta.dirname, '../../packages/core/src/runtime');
const MAX_FUNCTION_LINES = 120;
const MAX_SEQUENCE_LINES = 80;

interface FunctionSpan {
  where: string;
  name: string;
  lines: number;
}

function functionsOf(file: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(runtime, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: FunctionSpan[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
      found.push({ where: `${file}:${start + 1}`, name, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the composition root (packages/core/src/runtime)', () => {
  const functions = readdirSync(runtime)
    .filter((file) => file.endsWith('.ts'))
    .flatMap(functionsOf);

  it(`buildAgentSession is a sequence of under ${MAX_SEQUENCE_LINES} lines`, () => {
    const sequence = functions.find((fn) => fn.name === 'buildAgentSession' && fn.where.startsWith('agent-session.ts:'));
    expect(sequence, 'buildAgentSession in agent-session.ts').toBeDefined();
    expect(sequence!.lines).toBeLessThan(MAX_SEQUENCE_LINES);
  });

  it(`no function in runtime/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(functions.length).toBeGreaterThan(50);
    expect(functions.filter((fn) => fn.lines > MAX_FUNCTION_LINES).map((fn) => `${fn.where} ${fn.name}: ${fn.lines} lines`)).toEqual([]);
  });
});

// Issue 52, item 5: a part says what it reads and returns what it found. Its input never takes the
// whole options (AgentSessionOptions) or `base` (RuntimeBase) bag, and no part is handed a shared
// `warnings` list to push into: it returns its warnings and the root collects them in order.
describe('the parts of buildAgentSession get what they read', () => {
  const { program, source } = rootProgram();
  const checker = program.getTypeChecker();
  const parts = rootParts(source);
  const BAGS = new Set(['AgentSessionOptions', 'RuntimeBase']);
  const bagName = (type: ts.Type) => [type.aliasSymbol?.name, type.getSymbol()?.name].find((name) => name !== undefined && BAGS.has(name));

  it('no part takes the options or base bag, or a warnings list', () => {
    expect(parts.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const part of parts) {
      // The session is made of every part, `base` included (AgentSession.base), and of the collected warnings.
      if (part.name === 'assembleAgentSession') continue;
      const signature = checker.getResolvedSignature(part.call);
      for (const parameter of signature?.getParameters() ?? []) {
        const type = checker.getTypeOfSymbolAtLocation(parameter, part.call);
        const whole = bagName(type);
        if (whole) found.push(`${part.name}(${parameter.name}: ${whole})`);
        for (const property of type.getProperties()) {
          const name = bagName(checker.getTypeOfSymbolAtLocation(property, part.call));
          if (name) found.push(`${part.name}({ ${property.name}: ${name} })`);
          if (property.name === 'warnings') found.push(`${part.name}({ warnings })`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});

// Issue 52, item 6: packages/core/README.md's runtime map is held to the root: every part the root
// calls has its row, in the order it is called, naming its file and what it receives.
describe("packages/core/README.md's runtime map", () => {
  const readme = readFileSync(path.resolve(runtime, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The runtime map'), readme.indexOf('### Where a new capability plugs in'));
  const rows = section
    .split('\n')
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const [part = '', receiving = ''] = line.split(' | ');
      const match = /^\| `(\w+)` \(([\w.-]+)\)/.exec(part);
      return { name: match?.[1], file: match?.[2], receives: receiving.trim() };
    });

  it('lists every part buildAgentSession calls, in its order, with its file and what it receives', () => {
    const { program, source } = rootProgram();
    const checker = program.getTypeChecker();
    const parts = rootParts(source).map((part) => ({ name: part.name, file: part.file, receives: receives(checker, part) }));
    expect(rows[0]).toMatchObject({ name: 'bindRunContext', file: 'run-context.ts' });
    expect(rows.slice(1)).toEqual(parts);
  });

  it('names no part number: the table is the order', () => {
    expect(section).not.toMatch(/^\| #/m);
    const numbered = readdirSync(runtime).filter((file) => /\bPart \d+/.test(readFileSync(path.join(runtime, file), 'utf8')));
    expect(numbered).toEqual([]);
  });
});
