/** Kept equal to the root package.json version and to @beans/core's (a test checks both), so `--version` reads no files and loads no package. */
export const VERSION = '0.1.0';
