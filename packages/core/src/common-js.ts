/**
 * The exports of a lazily imported CommonJS package. Plain Node offers them as named exports and as
 * `default`; the bundle's split chunks offer only `default`. Reading `default` first works in both.
 */
export function commonJsExports<T extends object>(namespace: T): T {
  return (namespace as T & { default?: T }).default ?? namespace;
}
