/** Reads `a.b.c` from nested plain objects. */
export function getDotted(root: unknown, key: string): unknown {
  let node = root;
  for (const part of key.split('.')) {
    if (!isPlainObject(node)) return undefined;
    node = node[part];
  }
  return node;
}

/** Writes `a.b.c`, creating (or replacing non-object) parents; existing keys keep their order. */
export function setDotted(root: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = root;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (!isPlainObject(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Splits a comma list, leaving commas inside parentheses alone so that permission rules like
 * `shell(git commit -m "a, b")` stay whole.
 */
export function splitList(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      items.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  items.push(current);
  return items.map((item) => item.trim()).filter((item) => item !== '');
}
