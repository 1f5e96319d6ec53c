import { PassThrough } from 'node:stream';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { earlyInitialize } from '../../src/acp/early-initialize.js';
import { ACP_PROTOCOL_VERSION } from '../../src/acp/initialize.js';

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
