// Preloaded (`node --import`) by test/e2e/no-undici.test.ts and startup-builtins.test.ts: when the
// process's first HTTP request starts (node:http's `http.client.request.start`, or undici's
// `undici:client:sendHeaders` for Node's fetch), appends to $MODULE_PROBE_FILE one line of JSON:
// which of Node's built-in modules of interest are loaded by then (process.moduleLoadList names each
// as "NativeModule <id>"): those named in $MODULE_PROBE_WATCH (comma-separated ids), else undici,
// node:tls, node:https and node:http2.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const CHANNELS = ['http.client.request.start', 'undici:client:sendHeaders'];
const WATCHED = process.env.MODULE_PROBE_WATCH?.split(',') ?? ['internal/deps/undici/undici', 'tls', 'https', 'http2'];
const file = process.env.MODULE_PROBE_FILE;
if (file) {
  const report = () => {
    for (const channel of CHANNELS) unsubscribe(channel, report);
    const loaded = WATCHED.filter((id) => process.moduleLoadList.includes(`NativeModule ${id}`));
    appendFileSync(file, `${JSON.stringify({ pid: process.pid, loaded })}\n`);
  };
  for (const channel of CHANNELS) subscribe(channel, report);
}
