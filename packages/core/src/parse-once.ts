/**
 * Options for zod's `safeParse` on values that are parsed once per process (settings, hooks, MCP
 * and agent definitions, tool input). By default zod compiles a specialised parser with `new
 * Function` the first time each object schema parses, which pays off over thousands of parses and
 * costs ~2-3 ms of start-up for one. Passed per call, so programs sharing zod with @beans/core keep
 * their own setting.
 */
export const PARSE_ONCE = { jitless: true } as const;
