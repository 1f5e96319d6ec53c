/** A shell command line split into the simple commands a permission rule can judge one by one. */
export interface SplitCommand {
  /** Simple commands, whitespace-normalised, e.g. `git add .` and `npm test` for `git add . && npm test`. */
  segments: string[];
  /** True when the line has `$(...)`, backticks or process substitution: hidden commands. */
  hasSubstitution: boolean;
}

/**
 * Splits on `;`, `&&`, `||`, `|`, `&` and newlines outside quotes, and treats command or process
 * substitutions as separate commands too, so a rule like `shell(git *)` cannot approve
 * `git status && rm -rf ~` or `git log $(rm -rf ~)`.
 */
export function splitShellCommand(command: string): SplitCommand {
  const segments: string[] = [];
  let current = '';
  let hasSubstitution = false;
  let quote: '"' | "'" | undefined;
  const cut = () => {
    const segment = current.trim().replace(/\s+/g, ' ');
    if (segment) segments.push(segment);
    current = '';
  };
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    const next = command[i + 1];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      current += ch;
      continue;
    }
    if (ch === '\\' && next !== undefined) {
      current += ch + next;
      i++;
      continue;
    }
    if (ch === '`' || (ch === '$' && next === '(') || ((ch === '<' || ch === '>') && next === '(')) {
      hasSubstitution = true;
      cut();
      if (ch !== '`') i++;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = undefined;
      current += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
      continue;
    }
    if (ch === ';' || ch === '\n' || ch === '(' || ch === ')') {
      cut();
      continue;
    }
    if (ch === '|') {
      cut();
      if (next === '|' || next === '&') i++;
      continue;
    }
    if (ch === '&') {
      // `2>&1`, `>&2` and `&>file` are redirections, not separators.
      if (command[i - 1] === '>' || next === '>') {
        current += ch;
        continue;
      }
      cut();
      if (next === '&') i++;
      continue;
    }
    current += ch;
  }
  cut();
  return { segments, hasSubstitution };
}
