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
