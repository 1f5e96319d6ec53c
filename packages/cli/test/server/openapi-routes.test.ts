import { describe, expect, it } from 'vitest';
import { createServerApp } from '../../src/server/app.js';
import { SessionTable } from '../../src/server/session-table.js';

// The OpenAPI document is made from the same definitions that route and validate requests; this
// holds the two together, so a route added without its definition (or the reverse) fails here.
describe('GET /v1/openapi.json', () => {
  it('describes exactly the routes the server answers', async () => {
    const app = createServerApp({ token: 't', host: '127.0.0.1', sessions: new SessionTable(async () => Promise.reject(new Error('unused'))) });
    const response = await app.request('/v1/openapi.json', { headers: { host: '127.0.0.1:1', authorization: 'Bearer t' } });
    const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    const served = app.routes
      .filter((route) => route.path.startsWith('/v1/') && route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path.replace(/:([a-z_]+)/g, '{$1}')}`);
    expect([...new Set(served)].sort()).toEqual(documented.sort());
  });
});
