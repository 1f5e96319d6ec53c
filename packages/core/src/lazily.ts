/**
 * `build`'s value, built on the first call. For zod schemas: building them all at import cost ~10 ms
 * of every start-up, and a run without settings, hooks or MCP files never parses with most of them.
 */
export function lazily<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
