import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

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
