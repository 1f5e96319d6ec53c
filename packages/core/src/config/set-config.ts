import { chmod, mkdir, readFile, rename, stat, writeFile } from '../async-fs.js';
import path from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { getDotted, isPlainObject, setDotted } from './dotted.js';
import { detectJsonFormat, formatJson, parseJsonObject } from './json-text.js';
import { findSettingKey, suggestSettingKey } from './setting-keys.js';
import { checkSettingValue, parseSettingText, unknownSettingKeys } from './validate.js';

export interface SetConfigOptions {
  /** The settings file to edit (workspace or user); created with its folder when missing. */
  file: string;
  /** Dotted key, e.g. `permissions.mode`. */
  key: string;
  /** As typed: numbers, booleans, comma lists for lists, JSON when it starts with `[` or `{`. */
  value: string;
}

export interface SetConfigResult {
  file: string;
  key: string;
  /** The value written, in its schema type. */
  value: unknown;
  /** What the file held before, if anything. */
  previous: unknown;
  created: boolean;
}

/**
 * Sets one key in a settings file, keeping every other key, their order, the indentation (2 or 4
 * spaces, tabs), line endings and the trailing newline. Unknown keys and wrong types are UsageErrors
 * (the user typed them); a settings file that is already broken is a ConfigError and is left alone.
 */
export async function setConfigValue({ file, key, value }: SetConfigOptions): Promise<SetConfigResult> {
  const setting = findSettingKey(key);
  if (!setting) throw new UsageError(`Unknown setting "${key}".${hintFor(key)} Run "beans config" to see every setting.`);
  const parsed = setting.kind === 'object' ? parseObjectText(key, value) : parseSettingText(setting, value);
  const unknown = isPlainObject(parsed) && setting.kind === 'object' ? unknownSettingKeys(parsed, key) : [];
  if (unknown.length > 0) throw new UsageError(`Unknown setting "${unknown[0]}".${hintFor(unknown[0])} Run "beans config" to see every setting.`);
  const problem = checkSettingValue(setting, parsed);
  if (problem) throw new UsageError(`"${problem.at}" must be ${problem.expected}, not ${problem.got}.`);

  await mkdir(path.dirname(file), { recursive: true });
  // Under a lock every Beans process takes: two settings written at once both stay.
  return withFileLock(file, async () => {
    let text = '';
    let created = false;
    let mode: number | undefined;
    try {
      text = await readFile(file, 'utf8');
      mode = (await stat(file)).mode & 0o777;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new ConfigError(`Cannot read the settings file ${file} (${code ?? (error as Error).message}).`);
      created = true;
    }
    const settings = parseJsonObject(text, file);
    const previous = getDotted(settings, key);
    setDotted(settings, key, parsed);

    // Write a sibling and rename it over the file, so a crash never leaves half a settings file.
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, formatJson(settings, detectJsonFormat(text)), 'utf8');
    if (mode !== undefined) await chmod(temporary, mode);
    await rename(temporary, file);
    return { file, key, value: parsed, previous, created };
  });
}

function hintFor(key: string): string {
  const hint = suggestSettingKey(key);
  return hint ? ` Did you mean "${hint}"?` : '';
}

function parseObjectText(key: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`"${key}" holds several settings: set one of them (e.g. "${key}.<name>") or give a JSON object.`);
  }
}
