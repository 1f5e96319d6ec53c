// Issue 32: what a long session is billed with prompt caching, beside the same prompts without it.
// The model reads N files of about 3 KB, one a turn, then answers; each provider's scripted server
// bills caching the way the provider does (test/support/prompt-cache.ts). Prints billed input tokens
// (input-token equivalents: Anthropic writes 1.25x and reads 0.1x, OpenAI and Gemini cached input at
// the model's cached price) and dollars (Beans' price table), cached and not.
// Run: node bench/cost.mjs [provider...]
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BEANS, ROOT, tempRepo } from './lib.mjs';
import { chosenProviders } from './providers.mjs';
import { automaticPromptCache } from '../test/support/prompt-cache.ts';

const { priceForModel } = await import(path.join(ROOT, 'packages/core/dist/llm/pricing.js'));
const SESSIONS = [30, 100];
const MODELS = { anthropic: 'claude-sonnet-5-5', openai: 'gpt-6.1-terra', gemini: 'gemini-2.5-flash', ollama: 'qwen3' };

function file(i) {
  return Array.from({ length: 60 }, (_, line) => `export const value${i}_${line} = ${i * 1000 + line}; // line ${line} of file ${i}`).join('\n');
}

async function session(name, provider, turns) {
  const repo = tempRepo();
  mkdirSync(path.join(repo.dir, 'src'), { recursive: true });
  for (let i = 1; i <= turns; i++) writeFileSync(path.join(repo.dir, 'src', `file${i}.ts`), file(i));
  // A local endpoint is not api.openai.com: turn prompt_cache_key on, as a user of the real API gets by default.
  // The user's settings: a repository's own are an allow-list until it is trusted.
  mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
  writeFileSync(
    path.join(repo.home, '.config', 'beans-agent', 'settings.json'),
    JSON.stringify({ openai: { promptCacheKey: true }, ollama: { keepAlive: '30m' } }),
  );
  const server = await provider.start({
    promptCache: name !== 'ollama',
    turns: (_request, n) => (n < turns ? { toolCalls: [{ name: 'read_file', args: { path: `src/file${n + 1}.ts` } }] } : { text: `Read ${turns} files.` }),
  });
  const model = MODELS[name];
  const result = await new Promise((resolve, reject) => {
    const child = spawn(BEANS, ['-p', 'read every file under src, one a turn', '-m', model, '-o', 'json', '--max-turns', String(turns + 10)], {
      cwd: repo.dir,
      env: { ...repo.env, ...provider.env(server.url), BEANS_MODEL: model },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${name}: beans exited with ${code}: ${err}`))));
  });
  await server.close();
  repo.cleanup();
  const chats = server.requests.filter((r) => r.kind === 'chat');
  if (name === 'ollama') {
    // No bill: what share of each prompt repeats the one before (what the server's KV cache can reuse).
    const reuse = automaticPromptCache({
      minTokens: 0,
      blocksOf: (body) => [...(body.tools ?? []), ...(body.messages ?? [])].map((part) => JSON.stringify(part)),
    });
    for (const request of chats) reuse.bill(request.body);
    const total = reuse.bills.reduce((sum, bill) => sum + bill.input + bill.cacheRead, 0);
    const reused = reuse.bills.reduce((sum, bill) => sum + bill.cacheRead, 0);
    return {
      name,
      turns,
      requests: chats.length,
      noCache: total,
      billed: total - reused,
      dollars: 0,
      noCacheDollars: 0,
      reused: reused / total,
      usageMatches: true,
    };
  }
  const sum = (field) => chats.reduce((total, r) => total + (r.bill?.[field] ?? 0), 0);
  const input = sum('input');
  const read = sum('cacheRead');
  const write = sum('cacheWrite');
  const price = priceForModel(name, model);
  const readRate = name === 'anthropic' ? 0.1 : price.cacheReadPerMTok / price.inputPerMTok;
  const writeRate = name === 'anthropic' ? 1.25 : 1;
  const output = result.usage.output_tokens;
  const noCache = input + read + write;
  const usage = result.usage;
  return {
    name,
    turns,
    requests: chats.length,
    noCache,
    billed: input + writeRate * write + readRate * read,
    dollars: result.total_cost_usd,
    noCacheDollars: (noCache * price.inputPerMTok + output * price.outputPerMTok) / 1e6,
    usageMatches: usage.input_tokens === input && usage.cache_read_input_tokens === read && usage.cache_creation_input_tokens === write,
  };
}

console.log('provider   model               turns  requests  no-cache tokens  billed tokens  ratio   no-cache $   billed $  usage = bill');
for (const [name, provider] of chosenProviders()) {
  for (const turns of SESSIONS) {
    const r = await session(name, provider, turns);
    const ratio = r.billed / r.noCache;
    console.log(
      `${name.padEnd(9)}  ${MODELS[name].padEnd(18)}  ${String(turns).padStart(5)}  ${String(r.requests).padStart(8)}  ${Math.round(r.noCache).toLocaleString('en-US').padStart(15)}  ${Math.round(r.billed).toLocaleString('en-US').padStart(13)}  ${ratio.toFixed(3).padStart(5)}  ${`$${r.noCacheDollars.toFixed(4)}`.padStart(11)}  ${`$${r.dollars.toFixed(4)}`.padStart(9)}  ${name === 'ollama' ? `(free; ${(r.reused * 100).toFixed(1)}% of prompt tokens repeat the previous prompt)` : r.usageMatches ? 'yes' : 'NO'}`,
    );
  }
}
