import { describe, expect, it } from 'vitest';
import { classifyError, exitCodeForFailure, failureToError, missingGeminiKeyFailure, toProviderFailure } from '../../src/llm/failures.js';
import type { ProviderErrorKind } from '../../src/llm/types.js';

const withCode = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
const geminiApiError = (status: number, body: unknown) => Object.assign(new Error(JSON.stringify(body)), { name: 'ApiError', status });
const ollamaResponseError = (status: number, error: string) => Object.assign(new Error(error), { name: 'ResponseError', error, status_code: status });

describe('provider failures', () => {
  it('maps failures to the exit codes of the product contract', () => {
    const codes: [ProviderErrorKind, number][] = [
      ['auth', 3],
      ['unreachable', 3],
      ['model_not_found', 3],
      ['aborted', 130],
      ['rate_limit', 1],
      ['server', 1],
      ['network', 1],
      ['bad_request', 1],
      ['unknown', 1],
    ];
    for (const [kind, code] of codes) expect(exitCodeForFailure({ kind, message: '', retryable: false })).toBe(code);
    expect(failureToError(missingGeminiKeyFailure())).toMatchObject({ exitCode: 3, kind: 'auth' });
  });

  it('tells an Ollama user whose server is down to start it or set OLLAMA_HOST', () => {
    const failure = toProviderFailure(withCode('ECONNREFUSED'), { provider: 'ollama', host: 'http://10.0.0.5:11434' });
    expect(failure.kind).toBe('unreachable');
    expect(failure.message).toBe(
      'Cannot reach Ollama at http://10.0.0.5:11434 (connection refused). Start Ollama (`ollama serve`) or set OLLAMA_HOST to the address it listens on.',
    );
  });

  it('sees connection codes hidden inside an AggregateError', () => {
    const aggregate = Object.assign(new TypeError('fetch failed'), { cause: new AggregateError([Object.assign(new Error('x'), { code: 'ENOTFOUND' })]) });
    expect(classifyError(aggregate)).toMatchObject({ kind: 'unreachable', detail: 'host not found' });
  });

  it('quotes the server message of a Gemini error, not its JSON', () => {
    const failure = toProviderFailure(geminiApiError(400, { error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } }), {
      provider: 'gemini',
      host: 'h',
      model: 'm',
    });
    expect(failure).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(failure.message).toBe('Gemini rejected the request (HTTP 400): Invalid JSON payload received.');
  });

  it('treats an invalid Gemini key (400 API_KEY_INVALID) and 401/403 as auth problems', () => {
    const invalid = geminiApiError(400, {
      error: { code: 400, message: 'API key not valid. Please pass a valid API key.', details: [{ reason: 'API_KEY_INVALID' }] },
    });
    expect(classifyError(invalid).kind).toBe('auth');
    expect(classifyError(geminiApiError(403, { error: { code: 403, message: 'denied' } })).kind).toBe('auth');
    expect(classifyError(ollamaResponseError(401, 'unauthorized')).kind).toBe('auth');
  });

  it('reads Ollama response errors and Gemini retry hints', () => {
    expect(classifyError(ollamaResponseError(404, 'model "x" not found, try pulling it first'))).toMatchObject({ kind: 'model_not_found', status: 404 });
    const quota = geminiApiError(429, {
      error: { code: 429, message: 'quota', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12s' }] },
    });
    expect(classifyError(quota)).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 12_000 });
  });

  it('classifies aborts, timeouts and streams that ended early', () => {
    expect(classifyError(new DOMException('This operation was aborted', 'AbortError')).kind).toBe('aborted');
    expect(classifyError(new DOMException('signal timed out', 'TimeoutError')).kind).toBe('unreachable');
    expect(classifyError(new TypeError('terminated')).kind).toBe('network');
    expect(classifyError(new Error('Did not receive done or success response in stream.'))).toMatchObject({ kind: 'network', retryable: true });
    expect(classifyError(new Error('something odd'))).toMatchObject({ kind: 'unknown', retryable: false, detail: 'something odd' });
  });

  it('asks for a Gemini key by name when none is set', () => {
    expect(missingGeminiKeyFailure().message).toMatch(/^No Gemini API key found\. Set GEMINI_API_KEY \(or GOOGLE_API_KEY\)/);
  });
});
