// The library's options are generic over the program's context: a program's context type reaches
// every callback that receives it. Checked with tsc against the built declarations (`pnpm run
// build` first), the way a program using @beans/core compiles.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = path.resolve(import.meta.dirname, '../..');
const TSC = path.resolve(CORE, '../../node_modules/.bin/tsc');

function typeCheck(body: string): string {
  // Outside packages/ (the architecture check reads every file there); `@beans/core` is mapped to
  // the built declarations, whose own imports resolve from the package's node_modules.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-library-types-'));
  try {
    const prelude = [
      "import { createAgentSession, defineJsonSchemaTool, query, type InputGuardrail } from '@beans/core';",
      'interface Shop { user: { name: string; plan: "free" | "pro" }; orders: Map<string, string> }',
      'declare const shop: Shop;',
    ].join('\n');
    writeFileSync(path.join(dir, 'check.ts'), `${prelude}\n${body}\n`);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [path.resolve(CORE, '../../node_modules/@types')],
          paths: { '@beans/core': [path.join(CORE, 'dist', 'index.d.ts')] },
        },
        files: ['check.ts'],
      }),
    );
    try {
      execFileSync(TSC, ['-p', dir], { encoding: 'utf8', stdio: 'pipe' });
      return '';
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the library options are typed by the context', () => {
  it('every extension point compiles with the context type flowing into its callbacks', () => {
    const program = `
const onlyPro: InputGuardrail<Shop> = { name: 'pro', execute: ({ input, context }) => ({ tripwireTriggered: context.user.plan !== 'pro' && input.length > 0 }) };
void createAgentSession({
  context: shop,
  systemPrompt: (context) => \`You help \${context.user.name}.\`,
  tools: async ({ orders }) => [defineJsonSchemaTool({ name: 'order', description: 'an order', kind: 'read', inputSchema: { type: 'object' }, execute: async () => ({ content: orders.get('a') ?? '' }) })],
  inputGuardrails: [onlyPro],
  outputGuardrails: [{ name: 'short', execute: async ({ agentOutput, context }) => ({ tripwireTriggered: agentOutput.length > context.user.name.length * 100 }) }],
  onHandoff: (handoff, context) => void context.orders.set(handoff.to, handoff.reason),
  handoffInputFilter: ({ history, context, trigger }) => (trigger === 'tool' && context.user.plan === 'pro' ? history : history.slice(-2)),
  transformContext: (messages) => messages.slice(-10),
  toolLimits: { shell: 20 },
  memory: { list: async () => ['a fact'], add: async (fact: string) => ({ added: fact.length > 0 }) },
});
void query({ prompt: 'hi', options: { context: shop, systemPrompt: ({ user }) => user.name, toolNames: 'claude' } });
`;
    expect(typeCheck(program)).toBe('');
  }, 60_000);

  it('a callback that misreads the context does not compile (the check can fail)', () => {
    const output = typeCheck(`
void createAgentSession({ context: shop, systemPrompt: (context) => context.user.nmae });
void query({ prompt: 'hi', options: { context: shop, onHandoff: (_handoff, context) => void context.orders.push('x') } });
void createAgentSession({ context: shop, toolLimits: { shell: '20' } });
`);
    // The body starts on line 5, after the 3-line prelude and a blank line.
    expect(output).toMatch(/check\.ts\(5,\d+\): error TS2339: Property 'nmae' does not exist on type '\{ name: string; plan: "free" \| "pro"; \}'/);
    expect(output).toMatch(/check\.ts\(6,\d+\): error TS2339: Property 'push' does not exist on type 'Map<string, string>'/);
    expect(output).toMatch(/check\.ts\(7,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
    expect(output.match(/error TS/g)).toHaveLength(3);
  }, 60_000);
});
