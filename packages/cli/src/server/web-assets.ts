import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

// The web view's files (built by scripts/build-web.mjs into packages/cli/dist/web), served by
// `beans serve` at `/` without the token: they hold no data, and the page asks for the token itself.
// Every file goes with headers that keep it to itself: a Content-Security-Policy allowing nothing
// but this server (no inline script, no other origin, no framing), no MIME sniffing, no referrer.

/** This file's folder is packages/cli/dist/server, or the bundle's packages/cli/dist/bundle: both sit beside dist/web. */
const DEFAULT_FOLDER = fileURLToPath(new URL('../web/', import.meta.url));

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Pictures about to be sent are previewed from blob: URLs; Markdown images are links, never loaded.
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

interface WebFile {
  body: Buffer;
  gzip?: Buffer;
  type: string;
  cache: string;
}

export type WebAssets = (requestPath: string, request?: Request) => Response | undefined;

/**
 * The page's files read once into memory (~120 KB gzip), by URL path; undefined when the web view
 * was not built (the API is served all the same). `/` is the page; unknown paths are undefined.
 */
export function loadWebAssets(folder = DEFAULT_FOLDER): WebAssets | undefined {
  if (!existsSync(path.join(folder, 'index.html'))) return undefined;
  const files = new Map<string, WebFile>();
  const add = (urlPath: string, file: string, cache: string) => {
    const type = TYPES[path.extname(file)];
    if (!type) return;
    const gzip = existsSync(`${file}.gz`) ? readFileSync(`${file}.gz`) : undefined;
    files.set(urlPath, { body: readFileSync(file), gzip, type, cache });
  };
  // The page itself is asked again each time (it names the current script); the hashed assets never change.
  add('/', path.join(folder, 'index.html'), 'no-cache');
  add('/index.html', path.join(folder, 'index.html'), 'no-cache');
  for (const name of readdirSync(path.join(folder, 'assets'))) {
    const hashed = /-[A-Z0-9]{8}\.(js|css)$/.test(name);
    add(`/assets/${name}`, path.join(folder, 'assets', name), hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
  }
  return (requestPath, request) => {
    const file = files.get(requestPath);
    if (!file) return undefined;
    const gzip = file.gzip && /\bgzip\b/.test(request?.headers.get('accept-encoding') ?? '');
    const headers = { ...SECURITY_HEADERS, 'content-type': file.type, 'cache-control': file.cache, vary: 'accept-encoding' };
    return new Response(new Uint8Array(gzip ? file.gzip! : file.body), { status: 200, headers: gzip ? { ...headers, 'content-encoding': 'gzip' } : headers });
  };
}
