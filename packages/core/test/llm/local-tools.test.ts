import { describe, expect, it } from 'vitest';
import { parseStrictReply, partialAnswer, strictReplySchema, toGrammarSchema } from '../../src/llm/local-tools.js';

describe('strict tool replies for local models', () => {
  it('keeps only required properties, maps unions, enums and bounds', () => {
    expect(
      toGrammarSchema(
        {
          type: 'object',
          properties: {
            path: { type: 'string', maxLength: 9 },
            limit: { type: 'integer' },
            mode: { enum: ['a', 'b'] },
            either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            list: { type: 'array', items: { type: 'number' }, maxItems: 3 },
          },
          required: ['path', 'mode', 'either', 'list'],
        },
        0,
      ),
    ).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', maxLength: 9 },
        mode: { enum: ['a', 'b'] },
        either: { oneOf: [{ type: 'string' }, { type: 'null' }] },
        list: { type: 'array', items: { type: 'number' }, maxItems: 3 },
      },
    });
    const tools = [{ name: 'ls', description: 'List.', parameters: { type: 'object', properties: {} } }];
    expect(strictReplySchema(tools, true)).toEqual({ type: 'object', properties: { tool: { const: 'ls' }, arguments: { type: 'object', properties: {} } } });
    expect(strictReplySchema(tools, false)).toMatchObject({
      oneOf: [{ properties: { tool: { const: 'ls' } } }, { properties: { answer: { type: 'string' } } }],
    });
  });

  it('parses calls and answers, and streams an answer as its string grows', () => {
    expect(parseStrictReply('{"tool": "ls", "arguments": {"a": 1}}')).toMatchObject({ call: { name: 'ls', arguments: { a: 1 } } });
    expect(parseStrictReply('{ "answer": "hi" }')).toEqual({ answer: 'hi' });
    expect(parseStrictReply('{"answer": "cut')).toBeUndefined();
    expect(partialAnswer('{"tool": "ls"')).toBeUndefined();
    expect(partialAnswer('{\n  "answer": "Hel')).toBe('Hel');
    expect(partialAnswer('{"answer": "a\\nb\\')).toBe('a\nb');
    expect(partialAnswer('{"answer": "\\u00e9t\\u00')).toBe('ét');
    expect(partialAnswer('{"answer": "done \\"q\\"" }')).toBe('done "q"');
  });
});
