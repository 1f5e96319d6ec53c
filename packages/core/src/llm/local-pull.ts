import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from '../async-fs.js';
import path from 'node:path';
import { ProviderError, UsageError } from '../errors.js';
import { builtin } from '../node-builtins.js';
import { DEFAULT_LOCAL_MODEL } from './local.js';
import { cachedFileName, localModelsDir, parseModelUri, type ModelUri } from './local-models.js';

/**
 * `beans models pull`: a model file into the models folder. The bytes go to `<name>.part` and become
 * `<name>` only once complete and verified, so a cut download never passes for a model; a second pull
 * resumes the part with a Range request. The checksum is `--sha256`, else the one Hugging Face sends
 * for LFS files (X-Linked-ETag), else none. Over plain http anyone on the way can change the file and
 * any checksum sent with it, so a URL, an HF_ENDPOINT or a redirect that is http needs `--sha256`.
 */

export interface PullProgress {
  received: number;
  /** Undefined when the server sends no length. */
  total?: number;
  bytesPerSecond: number;
}

export interface PullOptions {
  uri?: string;
  sha256?: string;
  force?: boolean;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onProgress?: (progress: PullProgress) => void;
  /** Told once the transfer starts: the URL, and the byte it resumes from (0: from the start). */
  onStart?: (info: { url: string; resumeFrom: number; total?: number }) => void;
}

export interface PullResult {
  file: string;
  bytes: number;
  sha256: string;
  /** Already there: nothing was downloaded. */
  present: boolean;
  resumedFrom: number;
  verified: 'given' | 'server' | 'none';
}

const HF_ENDPOINT = 'https://huggingface.co';

export async function pullModel(options: PullOptions): Promise<PullResult> {
  const env = options.env ?? process.env;
  const wanted = options.uri?.trim() || DEFAULT_LOCAL_MODEL;
  const uri = parseModelUri(wanted);
  if (!uri) throw new UsageError(`"${wanted}" is not a model URI: use hf:<user>/<repo>:<quant>, hf:<user>/<repo>/<file>.gguf or an https URL.`);
  const expected = options.sha256?.trim().toLowerCase();
  if (expected !== undefined && !/^[0-9a-f]{64}$/.test(expected)) throw new UsageError('--sha256 takes the 64 hexadecimal digits of a SHA-256 checksum.');
  const dir = localModelsDir(env);
  const file = path.join(dir, cachedFileName(uri));
  const part = `${file}.part`;
  await mkdir(dir, { recursive: true });
  if (options.force) await rm(part, { force: true });
  else {
    const present = await stat(file).catch(() => undefined);
    if (present) {
      const sha256 = expected ? await hashFile(file) : '';
      if (expected && sha256 !== expected) throw checksumError(wanted, expected, sha256, 'The file already downloaded');
      return { file, bytes: present.size, sha256, present: true, resumedFrom: 0, verified: expected ? 'given' : 'none' };
    }
  }
  const headers: Record<string, string> = env.HF_TOKEN && uri.kind === 'hf' ? { authorization: `Bearer ${env.HF_TOKEN}` } : {};
  const fetchOptions: FetchOptions = { wanted, plainHttp: expected !== undefined, ...(options.signal ? { signal: options.signal } : {}) };
  // Refused before anything is sent: the address itself is plain http.
  assertSecure(uri.kind === 'url' ? uri.url.toString() : hfEndpoint(env), fetchOptions);
  const url = await downloadUrl(uri, env, headers, fetchOptions);
  const have = (await stat(part).catch(() => undefined))?.size ?? 0;
  const response = await request(url, { ...headers, ...(have > 0 ? { range: `bytes=${have}-` } : {}) }, fetchOptions);
  const resumed = response.status === 206 && have > 0;
  const resumeFrom = resumed ? have : 0;
  const length = Number(response.headers.get('content-length') ?? NaN);
  const total = Number.isFinite(length) ? resumeFrom + length : undefined;
  const serverSha = linkedSha256(response.headers);
  options.onStart?.({ url, resumeFrom, ...(total !== undefined ? { total } : {}) });

  const hash = builtin('node:crypto').createHash('sha256');
  if (resumed) for await (const chunk of createReadStream(part)) hash.update(chunk as Buffer);
  const out = await open(part, resumed ? 'a' : 'w');
  let received = resumeFrom;
  const started = Date.now();
  let lastReport = 0;
  try {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hash.update(value);
      await out.write(value);
      received += value.length;
      const now = Date.now();
      if (now - lastReport >= 200) {
        lastReport = now;
        options.onProgress?.({
          received,
          ...(total !== undefined ? { total } : {}),
          bytesPerSecond: ((received - resumeFrom) * 1000) / Math.max(1, now - started),
        });
      }
    }
  } catch (error) {
    throw transferError(error, wanted, file, received, options.signal);
  } finally {
    await out.close().catch(() => undefined);
  }
  options.onProgress?.({
    received,
    ...(total !== undefined ? { total } : {}),
    bytesPerSecond: ((received - resumeFrom) * 1000) / Math.max(1, Date.now() - started),
  });
  if (total !== undefined && received < total) {
    throw new ProviderError(`The download of ${wanted} stopped at ${received} of ${total} bytes; run the same command again to resume it.`, 'network', 1);
  }
  const sha256 = hash.digest('hex');
  const check = expected ?? serverSha;
  if (check && sha256 !== check) {
    await rm(part, { force: true });
    throw checksumError(wanted, check, sha256, 'The download');
  }
  await rename(part, file);
  return { file, bytes: received, sha256, present: false, resumedFrom: resumeFrom, verified: expected ? 'given' : serverSha ? 'server' : 'none' };
}

/** The file's address: the URL itself, or Hugging Face's resolve URL (a quant is looked up in the repository's file list). */
async function downloadUrl(uri: ModelUri, env: NodeJS.ProcessEnv, headers: Record<string, string>, options: FetchOptions): Promise<string> {
  if (uri.kind === 'url') return uri.url.toString();
  const endpoint = hfEndpoint(env);
  const repo = `${uri.user}/${uri.repo}`;
  let file = uri.file;
  if (!file) {
    const listing = await request(`${endpoint}/api/models/${repo}/revision/${uri.revision}`, headers, options);
    const body = (await listing.json().catch(() => ({}))) as { siblings?: { rfilename?: string }[] };
    const ggufs = (body.siblings ?? []).map((s) => s.rfilename ?? '').filter((name) => name.toLowerCase().endsWith('.gguf'));
    const quant = (uri.quant ?? '').toLowerCase();
    const matches = ggufs.filter((name) => !quant || path.posix.basename(name).toLowerCase().includes(quant));
    file = matches.find((name) => !/-\d{5}-of-\d{5}\.gguf$/i.test(name)) ?? matches[0];
    if (!file) {
      const known = ggufs.length > 0 ? ` It has: ${ggufs.slice(0, 12).join(', ')}.` : ' It has no .gguf files.';
      throw new ProviderError(`hf:${repo} has no .gguf file for "${uri.quant ?? ''}".${known}`, 'model_not_found', 3);
    }
  }
  return `${endpoint}/${repo}/resolve/${uri.revision}/${file.split('/').map(encodeURIComponent).join('/')}`;
}

function hfEndpoint(env: NodeJS.ProcessEnv): string {
  return (env.HF_ENDPOINT?.trim() || HF_ENDPOINT).replace(/\/+$/, '');
}

interface FetchOptions {
  wanted: string;
  /** `--sha256` was given: the bytes are checked against it, so a plain http hop cannot swap them unnoticed. */
  plainHttp: boolean;
  signal?: AbortSignal;
}

const MAX_REDIRECTS = 10;

/** A plain http address without `--sha256` is a usage error, named with what to do. */
function assertSecure(url: string, options: FetchOptions, redirectedFrom?: string): void {
  if (options.plainHttp || !/^http:/i.test(url)) return;
  const what = redirectedFrom ? `${redirectedFrom} redirects to ${url}, which is plain http` : `${url} is plain http`;
  throw new UsageError(
    `${what}: anyone on the way could change the file, and any checksum sent with it, so Beans keeps nothing fetched over http without --sha256. Use an https address, or pass --sha256 with the file's SHA-256.`,
  );
}

/**
 * GET with redirects followed here, one hop at a time: each must be https unless `--sha256` was
 * given, and the token goes only to the origin it was meant for, and never over http.
 */
async function request(url: string, headers: Record<string, string>, options: FetchOptions): Promise<Response> {
  const { wanted, signal } = options;
  let response: Response;
  let current = url;
  let sent = headers;
  for (let hop = 0; ; hop += 1) {
    if (/^http:/i.test(current)) sent = withoutAuthorization(sent);
    try {
      response = await fetch(current, { headers: sent, redirect: 'manual', ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw new ProviderError('The download was interrupted; run the same command again to resume it.', 'aborted', 130);
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ProviderError(
        `Cannot reach ${new URL(current).host} to download ${wanted} (${cause?.code ?? cause?.message ?? String(error)}).`,
        'unreachable',
        3,
      );
    }
    const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
    if (!location) break;
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS)
      throw new ProviderError(`Downloading ${wanted} failed: more than ${MAX_REDIRECTS} redirects from ${new URL(url).host}.`, 'server', 1);
    const next = new URL(location, current);
    assertSecure(next.toString(), options, current);
    if (next.origin !== new URL(current).origin) sent = withoutAuthorization(sent);
    current = next.toString();
  }
  url = current;
  if (response.status === 404)
    throw new ProviderError(
      `There is no model at ${wanted} (HTTP 404 from ${new URL(url).host}); check the repository, file or quant name.`,
      'model_not_found',
      3,
    );
  if (response.status === 401 || response.status === 403) {
    throw new ProviderError(
      `${new URL(url).host} refused the download of ${wanted} (HTTP ${response.status}); a gated or private model needs HF_TOKEN set to a token with access.`,
      'auth',
      3,
    );
  }
  if (response.status === 416)
    throw new ProviderError(`The partial download of ${wanted} is larger than the file on the server; run again with --force to start over.`, 'bad_request', 1);
  if (!response.ok || !response.body) throw new ProviderError(`Downloading ${wanted} failed: HTTP ${response.status} from ${new URL(url).host}.`, 'server', 1);
  return response;
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
}

/** Hugging Face sends an LFS file's SHA-256 as its (linked) ETag. */
function linkedSha256(headers: Headers): string | undefined {
  for (const name of ['x-linked-etag', 'etag']) {
    const value = headers.get(name)?.replace(/^W\//, '').replaceAll('"', '').trim().toLowerCase();
    if (value && /^[0-9a-f]{64}$/.test(value)) return value;
  }
  return undefined;
}

function checksumError(wanted: string, expected: string, actual: string, what: string): ProviderError {
  return new ProviderError(
    `${what} of ${wanted} does not match its checksum (expected SHA-256 ${expected}, got ${actual}); it was not kept.`,
    'bad_request',
    1,
  );
}

function transferError(error: unknown, wanted: string, file: string, received: number, signal?: AbortSignal): ProviderError {
  const code = (error as { code?: string }).code;
  if (code === 'ENOSPC')
    return new ProviderError(
      `The disk is full: ${path.dirname(file)} has no room for the rest of ${wanted} (${received} bytes written so far). Free some space and run the same command again to resume.`,
      'unknown',
      1,
    );
  if (signal?.aborted) return new ProviderError('The download was interrupted; run the same command again to resume it.', 'aborted', 130);
  return new ProviderError(
    `The download of ${wanted} was cut after ${received} bytes (${(error as Error).message ?? String(error)}); run the same command again to resume it.`,
    'network',
    1,
  );
}

async function hashFile(file: string): Promise<string> {
  const hash = builtin('node:crypto').createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
