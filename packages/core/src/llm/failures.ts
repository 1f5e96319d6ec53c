import { ProviderError } from '../errors.js';
import { providerDefinition as getProvider } from './builtin-providers.js';
import { parseRetryAfter } from './retry-after.js';
import { missingKeyFailure } from './provider-info.js';

import type { FailureHints, ProviderErrorKind, ProviderFailure } from './types.js';

/** What a failure message needs to know to tell the user what to do. */
export interface FailureContext {
  /** Provider id, e.g. 'gemini' or 'ollama'. */
  provider: string;
  /** The endpoint in use, named when it cannot be reached. */
  host: string;
  model?: string;
  /** How many requests were made, including the first. */
  attempts?: number;
  /** The provider's own messages; by default those of the registered provider `provider`. */
  hints?: FailureHints;
}

/** A caught error reduced to what decides retrying and messaging. */
export interface ErrorInfo {
  kind: ProviderErrorKind;
  status?: number;
  /** The server's own words (or the network error), one line, already shortened. */
  detail: string;
  retryable: boolean;
  /** The server asked to wait this long (Gemini's RetryInfo.retryDelay). */
  retryAfterMs?: number;
}

const UNREACHABLE_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ERR_INVALID_URL: 'invalid URL',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
};

const DROPPED_CODES: Record<string, string> = {
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_BODY_TIMEOUT: 'the server stopped sending',
  UND_ERR_HEADERS_TIMEOUT: 'the server did not answer in time',
  // http-fetch.ts's equivalents of undici's two timeouts.
  BODY_TIMEOUT: 'the server stopped sending',
  HEADERS_TIMEOUT: 'the server did not answer in time',
};

// Messages thrown by undici and the SDKs when a body ends early; they carry no error code.
const DROPPED_MESSAGES = [
  /^terminated$/i,
  /other side closed/i,
  /did not receive done or success response in stream/i,
  /incomplete json segment at the end/i,
  /premature close/i,
];

export function providerName(provider: string): string {
  return getProvider(provider)?.hints.name ?? provider;
}

// Generic messages; a provider's hints replace any of them.
const GENERIC: Required<Omit<FailureHints, 'name' | 'missingKey' | 'noModels'>> = {
  auth: '{name} rejected the API key ({http}){said}. Check the API key you set for {name}.',
  unreachable: 'Cannot reach {name} at {host} ({detail}). Check your network connection and the endpoint address.',
  modelNotFound: '{name} has no model named "{model}"{said}. Run `beans models list` to see the available models and pick one with --model.',
  rateLimit: "{name} is rate limiting requests or the quota is used up ({http}){tries}{said}. Wait a minute and try again, or check your plan's quota.",
};

/** Reduces any error thrown by fetch (Node's or http-fetch.ts), @google/genai or ollama to an ErrorInfo. */
export function classifyError(error: unknown): ErrorInfo {
  const chain = causeChain(error);
  const first = chain[0];

  if (chain.some((e) => e.name === 'AbortError')) {
    return { kind: 'aborted', detail: 'aborted', retryable: false };
  }
  if (chain.some((e) => e.name === 'TimeoutError')) {
    return { kind: 'unreachable', detail: 'timed out', retryable: false };
  }

  const status = httpStatus(error);
  if (status !== undefined) return classifyStatus(status, serverMessage(error), retryDelayFromBody(error) ?? retryAfterHeader(error));

  for (const e of chain) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code && code in UNREACHABLE_CODES) return { kind: 'unreachable', detail: UNREACHABLE_CODES[code], retryable: false };
    if (code && code in DROPPED_CODES) return { kind: 'network', detail: DROPPED_CODES[code], retryable: true };
  }
  if (chain.some((e) => DROPPED_MESSAGES.some((re) => re.test(e.message)))) {
    return { kind: 'network', detail: 'the connection closed before the response was complete', retryable: true };
  }
  return { kind: 'unknown', detail: oneLine(first?.message ?? String(error)), retryable: false };
}

function classifyStatus(status: number, detail: string, retryAfterMs: number | undefined): ErrorInfo {
  const base = { status, detail, retryAfterMs };
  if (status === 401 || status === 403) return { ...base, kind: 'auth', retryable: false };
  // Gemini answers a malformed or revoked key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
  if (status === 400 && /API_KEY_INVALID|API key not valid|API key expired/i.test(detail)) {
    return { ...base, kind: 'auth', retryable: false };
  }
  if (status === 404) return { ...base, kind: 'model_not_found', retryable: false };
  if (status === 429) return { ...base, kind: 'rate_limit', retryable: true };
  if (status === 408) return { ...base, kind: 'network', retryable: true };
  if (status >= 500) return { ...base, kind: 'server', retryable: status !== 501 };
  return { ...base, kind: 'bad_request', retryable: false };
}

/** Builds the user-facing failure: what happened, then what to do. */
export function failureFromInfo(info: ErrorInfo, context: FailureContext): ProviderFailure {
  return {
    kind: info.kind,
    message: failureMessage(info, context),
    ...(info.status !== undefined ? { status: info.status } : {}),
    retryable: info.retryable,
  };
}

export function toProviderFailure(error: unknown, context: FailureContext): ProviderFailure {
  return failureFromInfo(classifyError(error), context);
}

function failureMessage(info: ErrorInfo, context: FailureContext): string {
  const hints = context.hints ?? getProvider(context.provider)?.hints ?? { name: context.provider };
  const name = hints.name;
  const fill = (template: string) =>
    template
      .replaceAll('{name}', name)
      .replaceAll('{host}', context.host)
      .replaceAll('{model}', context.model ?? '')
      .replaceAll('{http}', info.status !== undefined ? `HTTP ${info.status}` : '')
      .replaceAll('{said}', info.detail ? `: ${info.detail}` : '')
      .replaceAll('{tries}', context.attempts && context.attempts > 1 ? ` after ${context.attempts} tries` : '')
      .replaceAll('{detail}', info.detail);

  switch (info.kind) {
    case 'auth':
      return fill(hints.auth ?? GENERIC.auth);
    case 'unreachable':
      return fill(hints.unreachable ?? GENERIC.unreachable);
    case 'model_not_found':
      if (!context.model) return fill('{name} at {host} answered {http} Not Found{said}. Check the endpoint address.');
      return fill(hints.modelNotFound ?? GENERIC.modelNotFound);
    case 'rate_limit':
      return fill(hints.rateLimit ?? GENERIC.rateLimit);
    case 'server':
      return fill('{name} had a server error ({http}){tries}{said}. Try again in a few minutes.');
    case 'network':
      return fill('The connection to {name} at {host} dropped ({detail}){tries}. Check your network and try again.');
    case 'bad_request':
      return fill('{name} rejected the request ({http}){said}.');
    case 'aborted':
      return 'The request was interrupted.';
    case 'unknown':
      return fill('{name} request failed{said}.');
  }
}

export function abortedFailure(): ProviderFailure {
  return { kind: 'aborted', message: 'The request was interrupted.', retryable: false };
}

export function missingGeminiKeyFailure(): ProviderFailure {
  return missingKeyFailure(getProvider('gemini')!);
}

/** Exit codes of the product contract: configuration problems are 3, an interrupt is 130. */
export function exitCodeForFailure(failure: ProviderFailure): number {
  switch (failure.kind) {
    case 'auth':
    case 'unreachable':
    case 'model_not_found':
      return 3;
    case 'aborted':
      return 130;
    default:
      return 1;
  }
}

/** For APIs that reject rather than stream (listModels): the failure as a typed error. */
export function failureToError(failure: ProviderFailure): ProviderError {
  return new ProviderError(failure.message, failure.kind, exitCodeForFailure(failure));
}

interface ErrorLike {
  name: string;
  message: string;
  code?: unknown;
}

function causeChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let current: unknown = error;
  while (current && typeof current === 'object' && chain.length < 8) {
    const e = current as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown; errors?: unknown };
    chain.push({ name: typeof e.name === 'string' ? e.name : '', message: typeof e.message === 'string' ? e.message : '', code: e.code });
    // AggregateError from happy-eyeballs connects hides the real codes one level down.
    if (Array.isArray(e.errors) && e.errors.length > 0) chain.push(...causeChain(e.errors[0]));
    current = e.cause;
  }
  return chain;
}

function httpStatus(error: unknown): number | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { status?: unknown; status_code?: unknown };
  const status = typeof e.status === 'number' ? e.status : typeof e.status_code === 'number' ? e.status_code : undefined;
  return status !== undefined && status >= 400 && status < 600 ? status : undefined;
}

/** Gemini's ApiError message is the JSON error body; Ollama's ResponseError carries `error`. */
function serverMessage(error: unknown): string {
  const e = error as { message?: unknown; error?: unknown };
  if (typeof e.error === 'string') return oneLine(e.error);
  // openai's APIError keeps `{message}`, @anthropic-ai/sdk's the whole `{type, error: {message}}` body.
  const sdkBody = e.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  if (sdkBody && typeof sdkBody === 'object') {
    if (typeof sdkBody.message === 'string') return oneLine(sdkBody.message);
    if (typeof sdkBody.error?.message === 'string') return oneLine(sdkBody.error.message);
  }
  const message = typeof e.message === 'string' ? e.message : '';
  const body = parseJson(message);
  const inner = body && typeof body === 'object' ? (body as { error?: { message?: unknown } }).error : undefined;
  if (inner && typeof inner.message === 'string') {
    const parsedAgain = parseJson(inner.message); // non-JSON error bodies get wrapped once more
    const nested = parsedAgain && typeof parsedAgain === 'object' ? (parsedAgain as { error?: { message?: unknown } }).error : undefined;
    return oneLine(nested && typeof nested.message === 'string' ? nested.message : inner.message);
  }
  return oneLine(message);
}

/** Gemini puts `{"@type": ".../google.rpc.RetryInfo", "retryDelay": "7s"}` in the error details. */
function retryDelayFromBody(error: unknown): number | undefined {
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return undefined;
  const body = parseJson(message) as { error?: { details?: unknown } } | undefined;
  const details = body?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const delay = (detail as { retryDelay?: unknown } | null)?.retryDelay;
    if (typeof delay === 'string') {
      const ms = parseDurationSeconds(delay);
      if (ms !== undefined) return ms;
    }
  }
  return undefined;
}

/** openai's and @anthropic-ai/sdk's APIError keep the response headers, Retry-After among them. */
function retryAfterHeader(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown }).headers;
  if (!headers || typeof (headers as Headers).get !== 'function') return undefined;
  return parseRetryAfter((headers as Headers).get('retry-after'));
}

/** "7s", "1.5s" (protobuf Duration JSON) to milliseconds. */
function parseDurationSeconds(value: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(value);
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

function parseJson(text: string): unknown {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function oneLine(text: string, max = 300): string {
  const flat = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.\s]+$/, '');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
