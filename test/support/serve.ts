/**
 * Runs a scripted server until killed, for tmux tests and benchmarks:
 *   node test/support/serve.ts --provider ollama|gemini|openai|anthropic --script path.json [--port N] [--log path]
 * Prints `URL=<url>` as the first line of stdout. With --log, appends one JSON line per request.
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startScriptedAnthropic } from './scripted-anthropic.ts';
import { startScriptedGemini } from './scripted-gemini.ts';
import { startScriptedOllama } from './scripted-ollama.ts';
import { startScriptedOpenAi } from './scripted-openai.ts';
import { loadScriptFile } from './script.ts';
import type { RecordedRequest } from './script.ts';

const { values } = parseArgs({
  options: {
    provider: { type: 'string' },
    script: { type: 'string' },
    port: { type: 'string' },
    log: { type: 'string' },
  },
});

const servers = { ollama: startScriptedOllama, gemini: startScriptedGemini, openai: startScriptedOpenAi, anthropic: startScriptedAnthropic };
const provider = values.provider;
if (!provider || !(provider in servers) || !values.script) {
  process.stderr.write('usage: node test/support/serve.ts --provider ollama|gemini|openai|anthropic --script path.json [--port N] [--log path]\n');
  process.exit(2);
}

const script = loadScriptFile(values.script);
const logPath = values.log;
const onRequest = logPath ? (request: RecordedRequest) => appendFileSync(logPath, `${JSON.stringify(request)}\n`) : undefined;
const start = servers[provider as keyof typeof servers];
const server = await start({ ...script, port: values.port ? Number(values.port) : 0, onRequest });
process.stdout.write(`URL=${server.url}\n`);

const stop = () => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
