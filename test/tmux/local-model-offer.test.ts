import { readdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { tinyLlamaGguf } from '../support/gguf.ts';
import { makeTempRepo, type TempRepo } from '../support/scratch.ts';
import { testCertificate } from '../support/tls.ts';
import { TmuxSession, hasTmux } from './tmux.ts';

// Chat with no key, no Ollama and no local model (issue 45): it says so and offers to pull the default
// model with one key. The "Hugging Face" here is an https server on 127.0.0.1 (HF_ENDPOINT, its
// certificate trusted through NODE_EXTRA_CA_CERTS: plain http needs --sha256) serving the tiny test
// model under the default model's path; after `y` the chat starts on it.

const open: { session: TmuxSession; workspace: TempRepo; server: Server }[] = [];
afterEach(() => {
  for (const entry of open.splice(0)) {
    entry.session.kill();
    entry.server.close();
    entry.workspace.cleanup();
  }
});

async function start(): Promise<{ session: TmuxSession; workspace: TempRepo; requests: string[] }> {
  const model = tinyLlamaGguf({ contextLength: 32768 });
  const requests: string[] = [];
  const server = createServer({ cert: testCertificate().cert, key: testCertificate().key }, (req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/Qwen/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q8_0.gguf') res.writeHead(200, { 'content-length': String(model.length) }).end(model);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadPort = (closed.address() as AddressInfo).port;
  closed.close();
  const workspace = makeTempRepo();
  mkdirSync(path.join(workspace.home, '.config', 'beans-agent'), { recursive: true });
  writeFileSync(path.join(workspace.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify({ local: { threads: 1, gpu: 'off', maxTokens: 16 } }));
  const session = TmuxSession.start({
    workspace,
    env: {
      HF_ENDPOINT: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      NODE_EXTRA_CA_CERTS: testCertificate().certFile,
      OLLAMA_HOST: `http://127.0.0.1:${deadPort}`,
    },
    args: ['chat'],
  });
  open.push({ session, workspace, server });
  return { session, workspace, requests };
}

describe.skipIf(!hasTmux)('chat with nothing to answer (tmux)', () => {
  test('offers the default model; n exits 3, y pulls it and the chat starts on it', async () => {
    const declined = await start();
    await declined.session.waitForText('? [y/N]', 20_000);
    expect(declined.session.screen()).toContain('no local model is downloaded. Run `beans models pull`');
    declined.session.type('n');
    await declined.session.waitForText('[beans exited with 3]');
    expect(declined.requests).toEqual([]);

    const { session, workspace, requests } = await start();
    await session.waitForText('? [y/N]', 20_000);
    session.type('y');
    const screen = await session.waitFor(
      (text) => /using the local model/.test(text) && text.includes('Ask anything'),
      'the chat on the pulled model, its input drawn',
      40_000,
    );
    expect(screen).toContain('Saved ');
    expect(screen).toContain(' · local · ');
    expect(screen).toContain('Ask anything');
    expect(requests).toEqual(['/Qwen/Qwen3-1.7B-GGUF/resolve/main/Qwen3-1.7B-Q8_0.gguf']);
    expect(readdirSync(path.join(workspace.home, '.cache', 'beans-agent', 'models'))).toEqual(['hf_Qwen_Qwen3-1.7B-Q8_0.gguf']);
  }, 90_000);
});
