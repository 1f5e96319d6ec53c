// Preloaded (`node --import`) by bench/startup-check.mjs into the floor and into beans: appends
// "<pid> <cpu µs>" to $STARTUP_CPU_PROBE_FILE with the process's CPU time (user + system, all of its
// threads) when its first HTTP request sends its headers, or at exit if it sends none (the floor).
// CPU time barely moves when the machine is busy, where wall time stretches with every other job.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const file = process.env.STARTUP_CPU_PROBE_FILE;
if (file) {
  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    const { user, system } = process.cpuUsage();
    appendFileSync(file, `${process.pid} ${user + system}\n`);
    unsubscribe('undici:client:sendHeaders', report);
  };
  subscribe('undici:client:sendHeaders', report);
  process.on('exit', report);
}
