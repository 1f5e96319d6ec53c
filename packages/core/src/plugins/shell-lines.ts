// How a command body asks for a shell line to run before the prompt reaches the model, as Claude
// Code writes it: ``!`cmd` `` after a line start, a space or a bracket (so `Hello!`x`` in prose stays
// prose), and a ```` ```! ```` fenced block. preprocess.ts runs them; runnable-file.ts finds them in
// a file the model is about to write.

export const INLINE_SHELL = /(^|[\s(])!`([^`\n]+)`/g;
export const SHELL_BLOCK_OPEN = /^ {0,3}(`{3,})!\s*$/;

/** True when the body holds a line preprocessing would run. */
export function hasShellLines(body: string): boolean {
  if (new RegExp(INLINE_SHELL.source).test(body)) return true;
  return body.split('\n').some((line) => SHELL_BLOCK_OPEN.test(line));
}
