// Bundles the built CLI (packages/cli/dist) into packages/cli/dist/bundle: start-up loads a few
// files instead of ~450 modules. main.js stands alone so `--version` loads nothing else; cli.mjs and
// the chunks it imports lazily (providers, Ink, MCP...) share code through split chunks.
// The bundle sits as deep in the tree as packages/core/dist/runtime, so paths that core resolves
// from its own file (the built-in plugins folder) point to the same place.
import { build, transform } from 'esbuild';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { requireBuiltins } from './bundle-builtins.mjs';
import { chunksToCommonJs } from './bundle-cjs.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'packages/cli/dist');
const outdir = path.join(dist, 'bundle');

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
  // Less text for Node to read, hash (compile cache) and scan (functions compile lazily from it): ~2.4%
  // fewer instructions to the first request. Names stay, so stack traces still say where they are.
  minifyWhitespace: true,
  minifySyntax: true,
  // CommonJS dependencies call require(); ESM output has none unless it is made. One for every chunk:
  // they sit in one folder, so it resolves the same for each, and making one per chunk cost ~0.2 ms
  // of CPU for each of the ~30 chunks a start loads.
  banner: {
    js: "import { createRequire as __beansRequire } from 'node:module'; const require = (globalThis[Symbol.for('beans.require')] ??= __beansRequire(import.meta.url));",
  },
  // Ink imports react-devtools-core only under DEV=true. The tree-sitter packages read their .wasm
  // files next to their own modules, so they stay outside. DBOS and pg load only with the dbos
  // workflow backend and stay packages: pg requires its optional native binding (pg-native) at run
  // time. Those four are dependencies of the root package, the one users install, and the bundle in
  // packages/cli/dist finds them in the root's node_modules here too. sharp (pictures scaled for a
  // provider) loads its prebuilt native binary from its @img/sharp-<platform> package, and
  // node-llama-cpp (the local provider, optional) its native binding from its own folder: both are
  // dependencies of @beans/cli, found in packages/cli/node_modules.
  external: ['react-devtools-core', 'web-tree-sitter', 'tree-sitter-bash', '@dbos-inc/dbos-sdk', 'pg', 'sharp', 'node-llama-cpp'],
};

// Ink measures text with string-width 8, whose first non-ASCII string costs ~19 ms of regex and
// ICU set-up: its imports go through ui/string-width.js, a fast path for one-column characters.
const stringWidthWrapper = path.join(dist, 'ui/string-width.js');
let stringWidthRoutes = 0;
const stringWidthFastPath = {
  name: 'string-width-fast-path',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.importer === stringWidthWrapper || args.pluginData === 'resolving') return undefined;
      const real = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'resolving' });
      if (!/[/\\]string-width@8\./.test(real.path)) return undefined;
      stringWidthRoutes += 1;
      return { path: stringWidthWrapper };
    });
  },
};

// Yoga (Ink's layout engine) is a WebAssembly module inlined as a data: URL. Its Emscripten loader
// reads that URL with fetch whenever fetch exists, and the first fetch loads Node's HTTP client:
// ~17 ms before the first frame. For a data: URL it is told to decode the bytes itself instead.
const YOGA_FETCH = 'function ya(){return w||"function"!=typeof fetch?';
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(build) {
    build.onLoad({ filter: /yoga-layout[/\\].*yoga-wasm-base64-esm\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(YOGA_FETCH)) throw new Error(`bundle: ${args.path} changed; check how it loads its WebAssembly now`);
      return { contents: source.replace(YOGA_FETCH, 'function ya(){return w||ua(H)||"function"!=typeof fetch?'), loader: 'js' };
    });
  },
};

// OpenTelemetry's gRPC exporters load @grpc/grpc-js through their own require wrapper (`__require`),
// which esbuild cannot follow: a plain require lets it bundle the client like the rest.
const otelGrpcRequires = {
  name: 'otel-grpc-requires',
  setup(build) {
    build.onLoad({ filter: /@opentelemetry[/\\]otlp-grpc-exporter-base[/\\].*\.m?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      return { contents: source.replaceAll('__require("@grpc/grpc-js")', 'require("@grpc/grpc-js")'), loader: 'js' };
    });
  },
};

// CommonJS packages run their module when the importing chunk loads, whether or not the run uses
// them: js-yaml 3 builds its schemas (~1.5-3.5 ms of every start, yet frontmatter made of `key: text`
// lines never needs it, see plugins/plain-frontmatter.ts) and picomatch sets up its tables (~1.3 ms;
// used when a permission rule names a path, by glob and by grep's include). In the bundle, these
// imports become a require() made on first use of a CommonJS file of the package's own beside the
// chunks (lazy-<package>.cjs, bundled below): a start neither runs nor loads its code (loading the
// chunk that held js-yaml unrun still cost ~1-2 ms). (The unbundled build keeps the plain imports.)
// `calls`: how the file uses the binding, checked so that a new use fails the build instead of
// reaching a missing member.
const LAZY_IMPORTS = [
  { file: 'plugins/frontmatter.js', binding: 'jsYaml', from: 'js-yaml', calls: ['jsYaml.safeLoad('] },
  { file: 'permissions/rules.js', binding: 'picomatch', from: 'picomatch', calls: ['picomatch('] },
  { file: 'tools/file-walk.js', binding: 'picomatch', from: 'picomatch', calls: ['picomatch('] },
  { file: 'tools/grep.js', binding: 'picomatch', from: 'picomatch', calls: ['picomatch('] },
];
// commander requires node:child_process when it loads, for executable subcommands, which Beans
// has none of: node:child_process (with node:dgram, ~1 ms of CPU) is required on first spawn instead.
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const commanderChildProcess = {
  name: 'commander-child-process',
  setup(build) {
    build.onLoad({ filter: /[/\\]commander[/\\]lib[/\\]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const uses =
        source
          .split(COMMANDER_CHILD_PROCESS)
          .join('')
          .match(/\bchildProcess\b\.?\w*/g) ?? [];
      if (!source.includes(COMMANDER_CHILD_PROCESS) || uses.some((use) => use !== 'childProcess.spawn')) {
        throw new Error(`bundle: ${args.path} changed how it uses node:child_process (${uses.join(' ')}); check commanderChildProcess`);
      }
      return {
        contents: source.replace(COMMANDER_CHILD_PROCESS, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };"),
        loader: 'js',
      };
    });
  },
};

const madeLazy = new Set();
/** The file beside the chunks that holds a LAZY_IMPORTS package (the chunks' `require` resolves from their folder). */
const lazyFile = (from) => `./lazy-${from.replace(/[^\w.-]/g, '_')}.cjs`;
const lazyImports = {
  name: 'lazy-imports',
  setup(build) {
    build.onResolve({ filter: /^\.\/lazy-[\w.-]+\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    build.onLoad({ filter: /[/\\]core[/\\]dist[/\\].*\.js$/ }, async (args) => {
      const relative = path.relative(path.join(root, 'packages/core/dist'), args.path).split(path.sep).join('/');
      const spec = LAZY_IMPORTS.find((entry) => entry.file === relative);
      if (!spec) return undefined;
      const source = await readFile(args.path, 'utf8');
      const line = `import ${spec.binding} from '${spec.from}';`;
      // Comments dropped (roughly: only for this check) so that prose naming the package is not a use.
      const code = source
        .split(line)
        .join('')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      const uses = code.match(new RegExp(`\\b${spec.binding}\\b(?:\\.\\w+)?\\(?`, 'g')) ?? [];
      if (!source.includes(line) || uses.length === 0 || uses.some((use) => !spec.calls.includes(use))) {
        throw new Error(`bundle: ${relative} changed how it uses ${spec.from} (${uses.join(' ')}); check LAZY_IMPORTS`);
      }
      const load = `require(${JSON.stringify(lazyFile(spec.from))})`;
      const lazy = spec.calls.includes(`${spec.binding}(`)
        ? `const ${spec.binding} = (...args) => ${load}(...args);`
        : `const ${spec.binding} = { ${spec.calls
            .map((call) => call.slice(spec.binding.length + 1, -1))
            .map((member) => `${member}: (...args) => ${load}.${member}(...args)`)
            .join(', ')} };`;
      madeLazy.add(relative);
      return { contents: source.replace(line, lazy), loader: 'js' };
    });
  },
};

// Node's Headers and Response are undici's, one lazily loaded module (~15-25 ms of CPU with the
// HTTP/2 client and node:tls it brings), and these SDKs touch `Headers` before their first request
// (ollama's normalizeHeaders, Anthropic's, Gemini's and OpenAI's buildHeaders; Gemini builds a Response
// per streamed event; Anthropic and OpenAI ask `body instanceof FormData`). Their free `Headers`/`Response`
// names are pointed at Beans' undici-free classes (core llm/fetch-headers.ts, llm/fetch-response.ts),
// which llm/provider-fetch.ts answers with, and `FormData` at a stand-in that gives Node's own when one
// is made (llm/fetch-classes.ts), so one start never loads undici. Only free names change
// (`globalThis.Headers` stays Node's), and the classes' `instanceof` accepts Node's objects too.
// The SDKs thus see one consistent pair: the Headers and Response they build and check are the ones
// their fetch answers with.
const fetchClassesFile = path.join(root, 'packages/core/dist/llm/fetch-classes.js');
const FETCH_CLASS_SDKS = /[/\\]node_modules[/\\](ollama|@anthropic-ai[/\\]sdk|@google[/\\]genai|openai)[/\\].*\.mjs$/;
// Gemini's "wake Node's undici up" call (it then uses undici's global dispatcher) must stay Node's.
const GEMINI_UNDICI_WAKE = /typeof Headers !== 'undefined'\) \{(\s*\/\/ Trigger Node's lazy Undici initialization[^\n]*\n\s*)new Headers\(\);/g;
const sdkFetchClasses = {
  name: 'sdk-fetch-classes',
  setup(build) {
    build.onLoad({ filter: FETCH_CLASS_SDKS }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      if (/[/\\]openai[/\\]lib[/\\]EventStream\.mjs$/.test(args.path)) source = openAiTrustedHeaders(args.path, source);
      if (/[/\\]node_modules[/\\]openai[/\\]client\.mjs$/.test(args.path)) source = openAiChatAndModelsOnly(args.path, source);
      if (/[/\\]node_modules[/\\]openai[/\\]resources[/\\]/.test(args.path)) checkOpenAiResource(args.path, source);
      if (/[/\\]@google[/\\]genai[/\\]/.test(args.path)) {
        const wakes = source.match(GEMINI_UNDICI_WAKE)?.length ?? 0;
        if (wakes !== 1) throw new Error(`bundle: ${args.path} changed (${wakes} undici wake-ups, expected 1); check how it uses Headers now`);
        source = source.replace(GEMINI_UNDICI_WAKE, "typeof globalThis.Headers !== 'undefined') {$1new globalThis.Headers();");
        if (/[/\\]dist[/\\]web[/\\]index\.mjs$/.test(args.path)) source = geminiStreamBaseWhenUsed(args.path, geminiModelsOnly(args.path, source));
      }
      const sdk = args.path.match(FETCH_CLASS_SDKS)[1].replaceAll('\\', '/');
      const streams = LAZY_STREAM_SDKS.includes(sdk) ? { ReadableStream: '__beansReadableStream', 'globalThis.ReadableStream': '__beansReadableStream' } : {};
      const { code } = await transform(source, {
        loader: 'js',
        format: 'esm',
        define: { Headers: '__beansFetchHeaders', Response: '__beansFetchResponse', FormData: '__beansFormData', ...streams },
      });
      if (!/__beans(FetchHeaders|FetchResponse|FormData|ReadableStream)\b/.test(code)) return { contents: source, loader: 'js' };
      fetchClassRewrites.add(sdk);
      if (/__beansReadableStream\b/.test(code)) lazyStreamRewrites.add(sdk);
      return {
        contents: `import { FetchHeaders as __beansFetchHeaders, FetchResponse as __beansFetchResponse, LazyFormData as __beansFormData, LazyReadableStream as __beansReadableStream } from ${JSON.stringify(fetchClassesFile)};\n${code}`,
        loader: 'js',
      };
    });
  },
};
const fetchClassRewrites = new Set();
// The Anthropic and OpenAI SDKs ask `body instanceof (globalThis.)ReadableStream` of each request body
// and make their streams with `new`: their ReadableStream is llm/fetch-classes.ts's LazyReadableStream,
// so Node's web streams load when a stream is made (the answer's), not for that question. (Gemini's
// top level reads ReadableStream.prototype, which a stand-in cannot give: it keeps Node's.)
const LAZY_STREAM_SDKS = ['@anthropic-ai/sdk', 'openai'];
const lazyStreamRewrites = new Set();
let openAiTrustRewrites = 0;

// The OpenAI SDK's event-stream helpers (lib/EventStream.mjs: chat.completions.stream()/runTools(),
// Assistants and Responses streams; Beans' chat.completions.create({ stream: true }) is not one of them)
// remember, when the SDK loads, which built-in classes they trust when they measure the events they
// buffer: among them the global `Headers`, looked up by name with Object.getOwnPropertyDescriptor(globalThis,
// 'Headers'). Node defines that global as a lazy data property, so reading its descriptor loads undici
// (~35 ms of CPU in a bare process). In the bundle the SDK's `Headers` is Beans' class (above), so the
// one it trusts is that class too: the same check, about the Headers the SDK actually meets. Every
// other name of that list is still read from globalThis. The build fails if that code changes.
const OPENAI_TRUSTED_GLOBALS =
  /(for \(const name of \[\s*(?:'[A-Za-z0-9]+',\s*)*'Headers',\s*\]\) \{\s*const descriptor = )Object\.getOwnPropertyDescriptor\(globalThis, name\);/g;
function openAiTrustedHeaders(file, source) {
  const found = source.match(OPENAI_TRUSTED_GLOBALS)?.length ?? 0;
  if (found !== 1) throw new Error(`bundle: ${file} changed (${found} look-ups of trusted globals naming Headers, expected 1); check how it reads Headers now`);
  // `Headers` here is a free name, which the define below points at llm/fetch-headers.ts.
  openAiTrustRewrites += 1;
  return source.replace(OPENAI_TRUSTED_GLOBALS, "$1Object.getOwnPropertyDescriptor(name === 'Headers' ? { Headers } : globalThis, name);");
}

// @google/genai's web build is one 950 KB module, and its GoogleGenAI constructor makes every API
// module (live, batches, chats, caches, files, operations, authTokens, tunings, fileSearchStores) and
// its getters reach the "NextGen" client (interactions, webhooks, agents...): esbuild must keep all of
// it, and loading that much code costs ~6 ms of CPU per MB at every Gemini start even when it never
// runs (its top level also builds web streams). Beans' Gemini client uses only `models`
// (generateContentStream, list), so in the bundle GoogleGenAI makes only `models`: the other members
// are getters that throw, naming this file, and esbuild leaves out what only they reached (~600 KB).
// The build fails if GoogleGenAI's members change, or if gemini-client uses another member (checked
// below in geminiClientUses).
const GEMINI_DROPPED_MEMBERS = ['getNextGenClient', 'interactions', 'webhooks', 'agents', 'triggers', 'environments', 'credentials', 'voices'];
const GEMINI_DROPPED_MODULES = ['live', 'batches', 'chats', 'caches', 'files', 'operations', 'authTokens', 'tunings', 'fileSearchStores'];
let geminiTrims = 0;
function geminiModelsOnly(file, source) {
  const fail = (what) => {
    throw new Error(`bundle: ${file} changed (${what}); check GEMINI_DROPPED_MEMBERS/GEMINI_DROPPED_MODULES`);
  };
  const head = '\nclass GoogleGenAI {\n';
  const ctorLine = '\n    constructor(options = {}) {\n';
  const modelsLine = '\n        this.models = new Models(this.apiClient);\n';
  const start = source.indexOf(head);
  const ctor = source.indexOf(ctorLine, start);
  const models = source.indexOf(modelsLine, ctor);
  const end = source.indexOf('\n    }\n}\n', models);
  if (start < 0 || source.indexOf(head, start + 1) >= 0 || ctor < 0 || models < 0 || end < 0) fail('GoogleGenAI not found as expected');
  const members = [...source.slice(start + head.length, ctor).matchAll(/^ {4}(?:get )?(\w+)\(\) \{$/gm)].map((match) => match[1]);
  if (members.join() !== GEMINI_DROPPED_MEMBERS.join()) fail(`members before the constructor: ${members.join(', ')}`);
  const made = source
    .slice(models + modelsLine.length, end)
    .split('\n')
    .map((line) => line.trim());
  const modules = made.map((line) => line.match(/^this\.(\w+) = new [\w$]+\([\w., ()]*\);$/)?.[1]);
  if (modules.some((name) => !name) || [...modules].sort().join() !== [...GEMINI_DROPPED_MODULES].sort().join())
    fail(`constructor after models: ${made.join(' ')}`);
  const dropped = [...GEMINI_DROPPED_MEMBERS, ...GEMINI_DROPPED_MODULES]
    .map(
      (name) =>
        `    ${name === 'getNextGenClient' ? '' : 'get '}${name}() { throw new Error('GoogleGenAI.${name} is not in Beans\\' bundle: only models is (scripts/bundle.mjs)'); }\n`,
    )
    .join('');
  geminiTrims += 1;
  return `${source.slice(0, start + head.length)}${dropped}${source.slice(ctor + 1, models + modelsLine.length)}    }\n}\n${source.slice(end + '\n    }\n}\n'.length)}`;
}
// The module's streaming base (for the NextGen client's Stream, which the trim above leaves out) sets
// `ReadableStreamBase.prototype = ReadableStream.prototype` at its top level: a statement esbuild must
// keep although nothing uses ReadableStreamBase any more, and reading that prototype loads Node's web
// streams before the first request. The same two statements go into an arrow function called in place
// and marked pure: run at the same point when something uses ReadableStreamBase, left out otherwise.
const GEMINI_STREAM_BASE =
  /\nconst ReadableStreamBase = (function \(underlyingSource, strategy\) \{\n[\s\S]*?\n\});\nReadableStreamBase\.prototype = ReadableStream\.prototype;\n/g;
function geminiStreamBaseWhenUsed(file, source) {
  const found = source.match(GEMINI_STREAM_BASE)?.length ?? 0;
  if (found !== 1) throw new Error(`bundle: ${file} changed (${found} ReadableStreamBase definitions, expected 1); check geminiStreamBaseWhenUsed`);
  return source.replace(
    GEMINI_STREAM_BASE,
    '\nconst ReadableStreamBase = /* @__PURE__ */ (() => {\n    const base = $1;\n    base.prototype = ReadableStream.prototype;\n    return base;\n})();\n',
  );
}
// What core's client file uses of the SDK client it makes (one `const <binding> = ... new <Client>(`):
// only the members the bundle keeps. `checked()` tells whether the file went through the plugin.
function clientUses(name, { file, client, binding, kept, trim }) {
  let checked = false;
  const plugin = {
    name,
    setup(build) {
      build.onLoad({ filter: new RegExp(`[/\\\\]core[/\\\\]dist[/\\\\]llm[/\\\\]${file.replace('.', '\\.')}$`) }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        const made = source.match(new RegExp(`\\bnew ${client}\\(`, 'g'))?.length ?? 0;
        const uses = [...source.matchAll(new RegExp(`(?<![\\w.])${binding}\\??\\.(\\w+)`, 'g'))].map((match) => match[1]);
        if (made !== 1 || !new RegExp(`\\bconst ${binding} = `).test(source) || uses.length === 0 || uses.some((use) => !kept.includes(use))) {
          throw new Error(
            `bundle: ${args.path} uses ${client} differently (${made} made; ${binding}.${uses.join(`, ${binding}.`)}); the bundle keeps only ${kept.join(' and ')} (${trim})`,
          );
        }
        checked = true;
        return undefined;
      });
    },
  };
  return { plugin, checked: () => checked };
}
const geminiClientUses = clientUses('gemini-client-uses', {
  file: 'gemini-client.js',
  client: 'GoogleGenAI',
  binding: 'ai',
  kept: ['models'],
  trim: 'geminiModelsOnly',
});

// The OpenAI SDK's client makes all ~28 API resources in its constructor (chat, models, audio, beta,
// admin, responses, vectorStores...) and hangs their classes on OpenAI as statics, so esbuild keeps
// every resource module: a 1 MB chunk, loaded at every OpenAI start (~6 ms of CPU per MB even for code
// that never runs). Beans' OpenAI client uses only `chat` and `models` (checked in openAiClientUses):
// in the bundle the constructor makes only those, the other members are getters that throw naming this
// file, and their statics are gone. The resource modules (openai/resources/**) are marked free of side
// effects (onResolve below) so that esbuild leaves out the ones nothing uses: each only declares its
// classes, functions and constants and sets its own classes' statics, which checkOpenAiResource
// verifies line by line. The build fails if the constructor or statics change shape.
const OPENAI_KEPT_RESOURCES = ['chat', 'models'];
let openAiTrims = 0;
function openAiChatAndModelsOnly(file, source) {
  const fail = (what) => {
    throw new Error(`bundle: ${file} changed (${what}); check openAiChatAndModelsOnly`);
  };
  const made = [...source.matchAll(/^ {8}this\.(\w+) = new API\.(\w+)\(this\);$/gm)].map((match) => ({ member: match[1], api: match[2] }));
  const dropped = made.filter((entry) => !OPENAI_KEPT_RESOURCES.includes(entry.member));
  if (OPENAI_KEPT_RESOURCES.some((member) => !made.some((entry) => entry.member === member)) || dropped.length < 20)
    fail(`resources made: ${made.map((entry) => entry.member).join(', ')}`);
  let trimmed = source.replace(/^ {8}this\.(\w+) = new API\.(\w+)\(this\);\n/gm, (line, member) => (OPENAI_KEPT_RESOURCES.includes(member) ? line : ''));
  for (const { api } of dropped) {
    const statics = new RegExp(`^OpenAI\\.${api} = [\\w$]+;\\n`, 'gm');
    if ((trimmed.match(statics)?.length ?? 0) !== 1) fail(`OpenAI.${api} is not set once`);
    trimmed = trimmed.replace(statics, '');
    if (new RegExp(`\\bAPI\\.${api}\\b`).test(trimmed)) fail(`API.${api} is used elsewhere`);
  }
  const head = '\nexport class OpenAI {\n';
  if (trimmed.split(head).length !== 2) fail('class OpenAI not found once');
  const getters = dropped
    .map(
      ({ member }) => `    get ${member}() { throw new Error('OpenAI.${member} is not in Beans\\' bundle: only chat and models are (scripts/bundle.mjs)'); }\n`,
    )
    .join('');
  openAiTrims += 1;
  return trimmed.replace(head, `${head}${getters}`);
}
// A resource module's top-level lines: imports, exports, declarations, statics of its own classes
// (`A.B = C;` with A declared in the file), tslib's private-member helpers (`_Name = ...`), and the
// continuation of those. Anything else could be a side effect that leaving the module out would lose.
const RESOURCE_TOP_LEVEL = /^(?:$|\/\/|\/\*|\*| |\}|\]\);$|import |export |class |function |async function |const |let |var _|_\w+ = )/;
function checkOpenAiResource(file, source) {
  const declared = new Set([...source.matchAll(/^(?:export )?(?:class|function|const|let|var) ([\w$]+)/gm)].map((match) => match[1]));
  const odd = source.split('\n').filter((line) => {
    if (RESOURCE_TOP_LEVEL.test(line)) return false;
    const statics = line.match(/^([\w$]+)\.[\w$]+ = [\w$]+;$/);
    return !statics || !declared.has(statics[1]);
  });
  if (odd.length > 0)
    throw new Error(`bundle: ${file} has top-level code the bundle cannot prove free of side effects (${odd[0]}); check openAiResourcesWithoutSideEffects`);
}
const openAiResourcesWithoutSideEffects = {
  name: 'openai-resources-without-side-effects',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'openai-resources' || !/[/\\]node_modules[/\\]openai[/\\]/.test(args.importer)) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'openai-resources',
      });
      if (resolved.errors.length > 0 || !/[/\\]node_modules[/\\]openai[/\\]resources[/\\]/.test(resolved.path)) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};
const openAiClientUses = clientUses('openai-client-uses', {
  file: 'openai-client.js',
  client: 'OpenAI',
  binding: 'openai',
  kept: OPENAI_KEPT_RESOURCES,
  trim: 'openAiChatAndModelsOnly',
});

rmSync(outdir, { recursive: true, force: true });
// acp.mjs is an entry of its own so main.js can load it directly (`beans acp`, see main.ts), sharing
// its chunks with the import from cli.js.
const mainImports = { './cli.js': './cli.mjs', './acp/index.js': './acp.mjs' };
await build({
  ...common,
  entryPoints: { cli: path.join(dist, 'cli.js'), acp: path.join(dist, 'acp/index.js') },
  splitting: true,
  // .mjs: Node knows these are ES modules from the name, without looking for the nearest
  // package.json's "type" for each of the ~30 files `beans -p` loads (~1.5 ms of CPU, paired A/B);
  // most become .cjs scripts below (scripts/bundle-cjs.mjs). main.js keeps its name: bin/beans and
  // installed copies start it.
  outExtension: { '.js': '.mjs' },
  outdir,
  plugins: [
    stringWidthFastPath,
    yogaWithoutFetch,
    otelGrpcRequires,
    lazyImports,
    geminiClientUses.plugin,
    openAiClientUses.plugin,
    openAiResourcesWithoutSideEffects,
    sdkFetchClasses,
    commanderChildProcess,
  ],
});
for (const sdk of ['ollama', '@anthropic-ai/sdk', '@google/genai', 'openai']) {
  if (!fetchClassRewrites.has(sdk))
    throw new Error(`bundle: no module of ${sdk} had its Headers/Response pointed at llm/fetch-classes.js; check the SDK paths`);
}
if (geminiTrims !== 1 || !geminiClientUses.checked())
  throw new Error("bundle: @google/genai's dist/web/index.mjs or core's llm/gemini-client.js was not bundled through its plugin; check where they moved");
if (openAiTrims !== 1 || !openAiClientUses.checked())
  throw new Error("bundle: the OpenAI SDK's client.mjs or core's llm/openai-client.js was not bundled through its plugin; check where they moved");
for (const sdk of LAZY_STREAM_SDKS)
  if (!lazyStreamRewrites.has(sdk))
    throw new Error(`bundle: no module of ${sdk} had its ReadableStream pointed at llm/fetch-classes.js; check how it uses ReadableStream now`);
if (openAiTrustRewrites !== 1) throw new Error("bundle: the OpenAI SDK's lib/EventStream.mjs was not bundled through sdkFetchClasses; check where it moved");
// Ink moving to another string-width must not silently bring the 19 ms back.
if (stringWidthRoutes === 0) throw new Error('bundle: no import of string-width 8 was routed to ui/string-width.js; check what Ink uses now');
for (const { file } of LAZY_IMPORTS) if (!madeLazy.has(file)) throw new Error(`bundle: ${file} was not bundled through lazyImports; check where it moved`);
// Each LAZY_IMPORTS package as one CommonJS file (resolved from core, whose dependency it is).
for (const from of new Set(LAZY_IMPORTS.map((spec) => spec.from))) {
  const { banner: _banner, format: _format, ...cjs } = common;
  await build({
    ...cjs,
    format: 'cjs',
    stdin: {
      contents: `module.exports = require(${JSON.stringify(from)});`,
      resolveDir: path.join(root, 'packages/core'),
      sourcefile: `lazy-${from}.js`,
      loader: 'js',
    },
    outfile: path.join(outdir, lazyFile(from)),
  });
  const call = `require(${JSON.stringify(lazyFile(from))})`;
  if (!readdirSync(outdir).some((name) => name.endsWith('.mjs') && readFileSync(path.join(outdir, name), 'utf8').includes(call)))
    throw new Error(`bundle: no chunk requires ${lazyFile(from)}; check lazyImports`);
}
// main.js's lazy imports of cli and acp are the entries beside it; the compile cache's set-up and the
// stderr guard are in main.js itself, two files fewer to load before cli.mjs (bin/beans answers
// `--version` without Node, so main.js no longer needs to be the smallest file).
const entriesBeside = {
  name: 'entries-beside',
  setup: (build) => build.onResolve({ filter: /^\.\/(cli|acp\/index)\.js$/ }, (args) => ({ path: mainImports[args.path], external: true })),
};
await build({ ...common, entryPoints: { main: path.join(dist, 'main.js') }, outdir, plugins: [entriesBeside] });
// The PDF reader runs as a process of its own (core tools/pdf-child.js: bounded memory and time for
// a file that inflates to gigabytes). It is its own file beside the chunks, where core's
// tools/pdf-text.js looks for it (`./pdf-child.js` from its own module); PDF.js is inside it, and no
// longer in the chunks.
await build({ ...common, entryPoints: { 'pdf-child': path.join(root, 'packages/core/dist/tools/pdf-child.js') }, outdir, outExtension: { '.js': '.js' } });

// Before the CommonJS conversion: esbuild's own would wrap each built-in in __toESM, which defines a
// getter for every export of it (8-11M more instructions to a first request, measured).
if ((await requireBuiltins(outdir, common.banner.js)) === 0)
  throw new Error('bundle: no import of a Node built-in was turned into require(); check scripts/bundle-builtins.mjs');
const converted = await chunksToCommonJs(outdir, common.banner.js);
if (!converted.includes('cli.mjs')) throw new Error('bundle: cli.mjs was not turned into CommonJS; check scripts/bundle-cjs.mjs');
// main.js loads cli and acp as the CommonJS chunks they now are.
const mainFile = path.join(outdir, 'main.js');
const mainSource = readFileSync(mainFile, 'utf8');
const mainLoads = mainSource.replace(/import\("\.\/(cli|acp)\.mjs"\)/g, 'Promise.resolve().then(()=>require("./$1.cjs"))');
if ((mainLoads.match(/require\("\.\/(cli|acp)\.cjs"\)/g) ?? []).length !== 2)
  throw new Error('bundle: main.js no longer imports cli.mjs and acp.mjs as expected; check scripts/bundle.mjs');
writeFileSync(mainFile, mainLoads);

// V8 keeps each module's source text for as long as the process lives (functions compile lazily
// from it), and one character above U+00FF makes the whole text two bytes per character. esbuild
// escapes strings but prints comments and regular expressions as written: a dash in a comment of
// the OpenAI SDK doubled its 1 MB. Comment lines are made ASCII here (an escape reads the same in a
// comment); Beans' own regular expressions write theirs as escapes (tools/background-tasks.ts).
const nonAscii = /[\u0080-\uffff]/;
const commentLine = /^\s*(\/\/|\/\*|\*)/;
// Code units one by one: an emoji becomes its two surrogate escapes.
const escapeUnit = (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
for (const name of readdirSync(outdir)) {
  if (!/\.[mc]?js$/.test(name)) continue;
  const file = path.join(outdir, name);
  const source = readFileSync(file, 'utf8');
  if (!nonAscii.test(source)) continue;
  const lines = source.split('\n').map((line) => (nonAscii.test(line) && commentLine.test(line) ? line.replace(/[\u0080-\uffff]/g, escapeUnit) : line));
  writeFileSync(file, lines.join('\n'));
}
