// What diagnostics after an edit cost (issue 35): a 200-file TypeScript project, the real
// typescript-language-server, and the same code path write_file/edit_file take (EditDiagnostics:
// keep the old text before the edit, send the new one after, wait for the server's answer). Prints
// the cold first edit, then medians on the warm server for an edit that adds a type error, one that
// fixes it, and one that keeps the file clean (the server publishes nothing then).
// Then the first edit of a session whose server was started in the background (issue 58: a session
// prestarts its servers once its first request has gone out) after the model thought THINK_MS.
// Run: pnpm run build && node bench/lsp-diagnostics.mjs   (RUNS=n, default 10; THINK_MS, default 2000)
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, median } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { LspManager } = await import(path.join(root, 'packages/core/dist/lsp/manager.js'));
const { EditDiagnostics } = await import(path.join(root, 'packages/core/dist/lsp/edit-diagnostics.js'));
const RUNS = Number(process.env.RUNS ?? 10);
const FILES = 200;

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-lsp-bench-')));
mkdirSync(path.join(dir, 'src'));
writeFileSync(
  path.join(dir, 'tsconfig.json'),
  JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', noEmit: true }, include: ['src'] }),
);
for (let i = 0; i < FILES; i++) {
  const previous = i > 0 ? `import { value${i - 1}, Shape${i - 1} } from './m${i - 1}.js';\n` : '';
  const body =
    i > 0
      ? `export const value${i}: number = value${i - 1} + ${i};\nexport interface Shape${i} extends Shape${i - 1} { field${i}: string }\n`
      : `export const value0: number = 0;\nexport interface Shape0 { field0: string }\n`;
  writeFileSync(
    path.join(dir, 'src', `m${i}.ts`),
    `${previous}${body}export function describe${i}(shape: Shape${i}): string {\n  return shape.field${i} + String(value${i});\n}\n`,
  );
}

const THINK_MS = Number(process.env.THINK_MS ?? 2000);
const warnings = [];
const declaration = () => ({
  servers: [
    {
      name: 'typescript',
      origin: 'bench',
      file: 'bench',
      command: path.join(root, 'node_modules/.bin/typescript-language-server'),
      args: ['--stdio'],
      extensionToLanguage: { '.ts': 'typescript' },
      env: {},
      initializationOptions: { tsserver: { path: path.join(root, 'node_modules/typescript/lib/tsserver.js') } },
      startupTimeoutMs: 60_000,
      shutdownTimeoutMs: 2_000,
      restartOnCrash: false,
      maxRestarts: 0,
    },
  ],
  workspaceRoot: dir,
  env: process.env,
  warn: (message) => warnings.push(message),
});
const manager = new LspManager(declaration());
const edits = new EditDiagnostics(manager, { timeoutMs: 3_000, quietMs: 80 });
const file = path.join(dir, 'src', `m${FILES - 1}.ts`);
const original = `import { value${FILES - 2}, Shape${FILES - 2} } from './m${FILES - 2}.js';\nexport const value${FILES - 1}: number = value${FILES - 2} + 1;\nexport interface Shape${FILES - 1} extends Shape${FILES - 2} { extra: string }\n`;

async function edit(text) {
  const started = performance.now();
  await edits.beforeEdit(file);
  writeFileSync(file, text);
  const note = await edits.afterEdit(file, 'src/m.ts');
  return { ms: performance.now() - started, note };
}

try {
  const cold = await edit(`${original}export const broken: string = value${FILES - 1};\n`);
  console.log(`cold server, first edit (start, project load, old text, new text): ${fmt(cold.ms)}; ${cold.note ? 'error reported' : 'NO error reported'}`);
  await edit(original);
  const adds = [];
  const fixes = [];
  const clean = [];
  let missed = 0;
  for (let i = 0; i < RUNS; i++) {
    const added = await edit(`${original}export const broken${i}: string = value${FILES - 1};\n`);
    if (!added.note?.includes('TS2322')) missed++;
    adds.push(added.ms);
    fixes.push((await edit(original)).ms);
    clean.push((await edit(`${original}// note ${i}\n`)).ms);
    await edit(original);
  }
  console.log(
    `warm server, ${FILES}-file project, ${RUNS} runs: edit adding a type error median ${fmt(median(adds))} (reported ${RUNS - missed}/${RUNS}); edit fixing it median ${fmt(median(fixes))}; clean edit kept clean median ${fmt(median(clean))}`,
  );
  // How long the server itself takes from a change to its first publication (typescript-language-server
  // waits 200-300 ms before it asks tsserver); the rest of an edit's cost is Beans' 150 ms of quiet.
  const served = await manager.serverFor(file);
  console.log(`the server's own answer time (median of recent warm answers, change to its last part): ${fmt(served.server.answerMs)}`);
  await manager.close();

  // A new session on the same project: its server prestarted (one file opened), the model thinking.
  const firsts = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    const session = new LspManager(declaration());
    const checks = new EditDiagnostics(session, { timeoutMs: 3_000, quietMs: 80 });
    // What the session does: a file per extension (the most recently changed), then prestart.
    const { sampleFiles } = await import(path.join(root, 'packages/core/dist/lsp/prestart.js'));
    void session.prestart([...(await sampleFiles(dir, ['.ts'])).values()]);
    await new Promise((resolve) => setTimeout(resolve, THINK_MS));
    writeFileSync(file, original);
    const started = performance.now();
    await checks.beforeEdit(file);
    writeFileSync(file, `${original}export const broken: string = value${FILES - 1};\n`);
    const note = await checks.afterEdit(file, 'src/m.ts');
    firsts.push(performance.now() - started);
    if (!note?.includes('TS2322')) missed++;
    await session.close();
  }
  writeFileSync(file, original);
  console.log(
    `prestarted server, first edit of a session after ${THINK_MS} ms of model thinking: median ${fmt(median(firsts))} (${firsts.map((ms) => fmt(ms)).join(', ')}); errors missed overall: ${missed}`,
  );
  if (warnings.length) console.log(`warnings: ${warnings.join('; ')}`);
} finally {
  await manager.close();
  rmSync(dir, { recursive: true, force: true });
}
