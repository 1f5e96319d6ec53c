import { PassThrough } from 'node:stream';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { earlyInitialize } from '../../src/acp/early-initialize.js';
import { ACP_PROTOCOL_VERSION } from '../../src/acp/initialize.js';
import { LineGuard } from '../../src/acp/line-guard.js';

async function rest(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString('utf8');
  return text;
}

describe('answering initialize before the protocol library loads', () => {
  it('speaks the SDK protocol version', () => {
    expect(ACP_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION);
  });

  it('answers an initialize line split across chunks and passes on everything after it untouched', async () => {
    const stdin = new PassThrough();
    const written: string[] = [];
    const started = earlyInitialize(stdin, (line) => written.push(line));
    stdin.write('{"jsonrpc":"2.0","id":7,"method":"initial');
    stdin.write('ize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}}}}\n{"jsonrpc":"2.0","id":8,');
    const early = await started;
    stdin.end('"method":"session/new"}\n');
    expect(early.initialized).toEqual({ clientCapabilities: { fs: { readTextFile: true } } });
    expect(JSON.parse(written[0]!)).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { protocolVersion: 1, authMethods: [], agentCapabilities: { loadSession: true } },
    });
    expect(await rest(early.input)).toBe('{"jsonrpc":"2.0","id":8,"method":"session/new"}\n');
  });

  it('leaves any other first line (not JSON, another method) to the SDK', async () => {
    for (const first of ['not json', '{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}']) {
      const stdin = new PassThrough();
      const written: string[] = [];
      const started = earlyInitialize(stdin, (line) => written.push(line));
      stdin.end(`${first}\nnext\n`);
      const early = await started;
      expect(early.initialized).toBeUndefined();
      expect(written).toEqual([]);
      expect(await rest(early.input)).toBe(`${first}\nnext\n`);
    }
  });
});

describe('the line guard before the SDK (issue 53 item 8)', () => {
  const run = (chunks: string[], max: number) => {
    const lines: string[] = [];
    const refused: { id: unknown; message: string }[] = [];
    const guard = new LineGuard({ line: (bytes) => lines.push(Buffer.from(bytes).toString('utf8')), tooLong: (refusal) => refused.push(refusal) }, max);
    for (const chunk of chunks) guard.push(Buffer.from(chunk));
    guard.end();
    return { lines, refused };
  };

  it('passes whole lines of at most the limit, however they are split, and drops a longer one with its id', () => {
    const ok = '{"jsonrpc":"2.0","id":1}';
    const long = `{"jsonrpc":"2.0","id":"big","method":"x","params":"${'A'.repeat(40)}"}`;
    const { lines, refused } = run([ok.slice(0, 5), `${ok.slice(5)}\n${long.slice(0, 10)}`, `${long.slice(10)}\n{"id":3}\ntail`], ok.length);
    expect(lines).toEqual([`${ok}\n`, '{"id":3}\n', 'tail']);
    expect(refused).toEqual([{ id: 'big', message: expect.stringContaining('is larger than') }]);
  });

  it('answers a line without an id with id null, and one still open at the end of input', () => {
    expect(run([`{"method":"x","params":"${'B'.repeat(50)}"}\n`], 20).refused).toEqual([{ id: null, message: expect.any(String) }]);
    expect(run([`{"jsonrpc":"2.0","id":9,"params":"${'C'.repeat(50)}`], 20).refused).toEqual([{ id: 9, message: expect.any(String) }]);
  });
});
