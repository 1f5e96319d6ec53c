// What scripts/bundle.mjs gives the ollama, Anthropic, Gemini and OpenAI SDKs for their free `Headers`,
// `Response` and `FormData` names, so that none of them loads Node's undici before its first request.
export { FetchHeaders } from './fetch-headers.js';
export { FetchResponse } from './fetch-response.js';

/**
 * Node's own FormData, looked up only when used: `new` returns Node's object (undici's, loaded then:
 * only file uploads build one), and `instanceof` asks Node's class only about an object that says it
 * is a FormData, so the Anthropic SDK's `body instanceof FormData` on a JSON body loads nothing.
 */
export class LazyFormData {
  constructor(...args: unknown[]) {
    return new (globalThis.FormData as unknown as new (...args: unknown[]) => LazyFormData)(...args);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object FormData]' && value instanceof globalThis.FormData;
  }

  static {
    Object.defineProperty(LazyFormData, 'name', { value: 'FormData' });
  }
}

/**
 * Node's ReadableStream, looked up only when used. Loading Node's web streams (with the worker
 * messaging they bring for transfers) costs a few ms of CPU, and the Anthropic and OpenAI SDKs ask
 * `body instanceof ReadableStream` of each JSON body before the request leaves, while the answer's
 * stream is only needed once the request is out. `new` and `from` give Node's stream; `instanceof`
 * asks Node's class only about an object whose tag says it is a ReadableStream, so a string or a
 * plain object loads nothing.
 */
export class LazyReadableStream {
  constructor(...args: unknown[]) {
    return new (globalThis.ReadableStream as unknown as new (...args: unknown[]) => LazyReadableStream)(...args);
  }

  static from(...args: Parameters<typeof ReadableStream.from>): ReturnType<typeof ReadableStream.from> {
    return globalThis.ReadableStream.from(...args);
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === 'object' &&
      value !== null &&
      Object.prototype.toString.call(value) === '[object ReadableStream]' &&
      value instanceof globalThis.ReadableStream
    );
  }

  static {
    Object.defineProperty(LazyReadableStream, 'name', { value: 'ReadableStream' });
  }
}
