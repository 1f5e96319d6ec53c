// Builds the web view (packages/web) into packages/cli/dist/web: index.html, and under assets/ one
// script and one stylesheet named by their content's hash (so they may be cached for good), the icon,
// and a gzip copy of each text file for browsers that take it. `beans serve` reads this folder
// (packages/cli/src/server/web-assets.ts); nothing on the CLI's start-up path loads it.
// esbuild, which bundles the CLI already, bundles the page too: Preact's JSX, one file each, ~0.3 s.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const source = path.join(root, 'packages/web/src');
const outdir = path.join(root, 'packages/cli/dist/web');
const assets = path.join(outdir, 'assets');

rmSync(outdir, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });
const result = await build({
  entryPoints: { app: path.join(source, 'main.tsx') },
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome111', 'safari16.4', 'firefox115'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  // The licences of what the page bundles, in a file beside it rather than in every download.
  legalComments: 'external',
  entryNames: '[name]-[hash]',
  outdir: assets,
  metafile: true,
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
const script = outputs.find((file) => /^app-\w+\.js$/.test(file));
const style = outputs.find((file) => /^app-\w+\.css$/.test(file));
if (!script || !style) throw new Error(`build-web: expected app-HASH.js and app-HASH.css, got ${outputs.join(', ')}`);
const html = readFileSync(path.join(source, 'index.html'), 'utf8').replace('%JS%', script).replace('%CSS%', style);
if (html.includes('%')) throw new Error('build-web: index.html has a placeholder left');
writeFileSync(path.join(outdir, 'index.html'), html);
copyFileSync(path.join(source, 'icon.svg'), path.join(assets, 'icon.svg'));
for (const folder of [outdir, assets]) {
  for (const name of readdirSync(folder)) {
    if (!/\.(html|js|css|svg|txt)$/.test(name)) continue;
    const file = path.join(folder, name);
    writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: 9 }));
  }
}
