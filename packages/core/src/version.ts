/** Kept equal to the root package.json version (a test checks it), so `--version` reads no files. */
export const VERSION = '0.1.0';
