// The session server (issue 54), against a scripted Ollama through the real client:
// (1) latency from the model's first byte to the first SSE event a client reads (goal: under 20 ms);
// (2) `beans attach` on a session of over 1,000 events: from opening the terminal to the chat's
//     prompt drawn (goal: under 300 ms);
// (3) CPU of the server during a streamed turn with 0 and with 20 clients watching it (goal: the 20
//     add under 5% of a core).
// Run: node bench/serve.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';
import { BEANS, median, tempRepo } from './lib.mjs';

const RUNS = 7;

async function startServer(modelUrl) {
  const repo = tempRepo();
  const child = spawn(BEANS, ['serve'], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: modelUrl, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
  const [, url, token] = /^Beans is serving on (\S+)#token=(\S+)$/.exec(line);
  const call = async (method, route, body) => {
    const response = await fetch(new URL(route, url), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return response.json();
  };
  /** Reads an SSE route; `onEvent(data, id)` returning true stops it. */
  const stream = async (route, onEvent) => {
    const controller = new AbortController();
    const response = await fetch(new URL(route, url), { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data && onEvent(JSON.parse(data), Number(/^id: (\d+)$/m.exec(block)?.[1]))) return;
        }
      }
    } finally {
      controller.abort();
    }
  };
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  };
  return { repo, call, stream, cpuMs, stop: () => child.kill('SIGTERM') };
}

const untilResult = (count) => {
  let seen = 0;
  return (data) => data.type === 'result' && ++seen >= count;
};

// (1) First byte to first event.
{
  let requestAt = 0;
  const model = await startScriptedOllama({ turns: [{ text: ['Hello', ' there', '.'], chunkDelayMs: 50 }], onRequest: () => (requestAt = performance.now()) });
  const server = await startServer(model.url);
  const gaps = [];
  for (let run = 0; run < RUNS; run += 1) {
    const { id } = await server.call('POST', 'v1/sessions', { cwd: server.repo.dir });
    let firstEvent = 0;
    const watching = server.stream(`v1/sessions/${id}/events`, (data) => {
      if (data.type === 'stream_event' && data.event?.delta?.text && !firstEvent) firstEvent = performance.now();
      return data.type === 'result';
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.call('POST', `v1/sessions/${id}/messages`, { text: 'hi' });
    await watching;
    // The scripted server writes its first chunk as it answers the request.
    gaps.push(firstEvent - requestAt);
    await server.call('DELETE', `v1/sessions/${id}`);
  }
  console.log(
    `first byte -> first SSE text event: median ${median(gaps).toFixed(1)} ms (min ${Math.min(...gaps).toFixed(1)}, max ${Math.max(...gaps).toFixed(1)}; goal < 20 ms)`,
  );
  server.stop();
  await model.close();
}

// (2) Attach to a long session.
{
  const model = await startScriptedOllama({ turns: () => ({ text: ['One ', 'line ', 'of ', 'the ', 'answer, ', 'in ', 'ten ', 'small ', 'chunks', '.'] }) });
  const server = await startServer(model.url);
  const { id } = await server.call('POST', 'v1/sessions', { cwd: server.repo.dir });
  let events = 0;
  for (let turn = 0; events < 1_000; turn += 1) {
    const done = server.stream(`v1/sessions/${id}/events?after=${events}`, (data, eventId) => {
      events = eventId;
      return data.type === 'result';
    });
    await server.call('POST', `v1/sessions/${id}/messages`, { text: `question ${turn}` });
    await done;
  }
  const draws = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const { terminal_id: terminal } = await server.call('POST', `v1/sessions/${id}/terminals`, { columns: 120, rows: 40 });
    let output = '';
    await server.stream(`v1/sessions/${id}/terminals/${terminal}/output`, (data) => {
      if (data.type === 'output') output += data.data;
      return output.includes('Ask anything');
    });
    draws.push(performance.now() - started);
    await server.call('DELETE', `v1/sessions/${id}/terminals/${terminal}`);
  }
  console.log(
    `attach to a ${events}-event session, prompt drawn: median ${median(draws).toFixed(0)} ms (first ${draws[0].toFixed(0)} ms, loading the chat; then ${draws
      .slice(1)
      .map((ms) => ms.toFixed(0))
      .join(', ')}; goal < 300 ms)`,
  );
  server.stop();
  await model.close();
}

// (3) Twenty watchers.
{
  const chunks = Array.from({ length: 400 }, (_, index) => `word${index} `);
  const model = await startScriptedOllama({ turns: () => ({ text: chunks, chunkDelayMs: 5 }) });
  const server = await startServer(model.url);
  const measure = async (watchers) => {
    const { id } = await server.call('POST', 'v1/sessions', { cwd: server.repo.dir });
    const watching = Array.from({ length: watchers }, () => server.stream(`v1/sessions/${id}/events`, untilResult(1)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cpuBefore = server.cpuMs();
    const started = performance.now();
    const own = server.stream(`v1/sessions/${id}/events`, untilResult(1));
    await server.call('POST', `v1/sessions/${id}/messages`, { text: 'stream a lot' });
    await Promise.all([own, ...watching]);
    const wall = performance.now() - started;
    const cpu = server.cpuMs() - cpuBefore;
    await server.call('DELETE', `v1/sessions/${id}`);
    return { cpu, wall };
  };
  const alone = [];
  const watched = [];
  for (let run = 0; run < 3; run += 1) {
    alone.push(await measure(0));
    watched.push(await measure(20));
  }
  const share = (samples) => median(samples.map((sample) => (sample.cpu / sample.wall) * 100));
  console.log(
    `server CPU during a 400-chunk turn: ${share(alone).toFixed(1)}% of a core with 1 client, ${share(watched).toFixed(1)}% with 21 (20 more add ${(share(watched) - share(alone)).toFixed(1)} points; goal < 5)`,
  );
  server.stop();
  await model.close();
}
