import { createRequire } from 'node:module';
import type * as Stream from 'node:stream';
import type * as Util from 'node:util';

interface Builtins {
  'node:stream': typeof Stream;
  'node:util': typeof Util;
}

/**
 * A Node built-in as CommonJS, when it is needed (fetch-headers.ts, fetch-response.ts):
 * process.getBuiltinModule (Node >= 22.3), require before. Not an ESM `import`, whose namespace
 * reads every export (node:http's lazy `WebSocket` export loads all of undici, see http-fetch.ts).
 */
export function builtin<Id extends keyof Builtins>(id: Id): Builtins[Id] {
  return (process.getBuiltinModule?.(id) ?? createRequire(import.meta.url)(id)) as unknown as Builtins[Id];
}
