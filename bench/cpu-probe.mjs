// Preloaded (`node --import`) by bench/startup-check.mjs into the floor and into beans: appends
// "<pid> <cpu µs>" to $STARTUP_CPU_PROBE_FILE with the process's CPU time (user + system, all of its
// threads) when its first HTTP request starts (Node's fetch: undici sends its headers; node:http, which
// the provider clients use (packages/core/src/llm/http-fetch.ts): the request is made), or at exit if
// it makes none (the floor).
// CPU time barely moves when the machine is busy, where wall time stretches with every other job.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const CHANNELS = ['undici:client:sendHeaders', 'http.client.request.start'];
const file = process.env.STARTUP_CPU_PROBE_FILE;
if (file) {
  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    const { user, system } = process.cpuUsage();
    appendFileSync(file, `${process.pid} ${user + system}\n`);
    for (const channel of CHANNELS) unsubscribe(channel, report);
  };
  for (const channel of CHANNELS) subscribe(channel, report);
  process.on('exit', report);
}
