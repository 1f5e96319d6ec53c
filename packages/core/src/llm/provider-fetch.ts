import { FetchResponse, setFetchedFrom } from './fetch-response.js';
import { createHttpFetch, type FetchFunction } from './http-fetch.js';

/**
 * The fetch the ollama, Anthropic, Gemini and OpenAI clients give their SDKs: http-fetch.ts's
 * node:http transport answering with fetch-response.ts's Response, so that (with the bundle pointing
 * those SDKs' `Headers`/`Response` at the same classes, scripts/bundle.mjs) no provider call loads
 * Node's undici: ~15-35 ms of CPU on the way to the first request.
 */
export const providerFetch: FetchFunction = createHttpFetch({
  response: (body, init, url, redirected) => {
    const response = new FetchResponse(body, init);
    setFetchedFrom(response, url, redirected);
    return response;
  },
});
