// The shape of one settings key, in its own file: setting-keys.generated.ts names it without
// importing setting-keys.ts, which imports the generated list.

/** `record`: an object of named entries (the `providers` setting), held and shown as one value. */
export type SettingKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'list' | 'object' | 'record';

/** One key of the settings schema, as `beans config set` and error messages need it. */
export interface SettingKey {
  /** Dotted path, e.g. `permissions.mode`. */
  key: string;
  kind: SettingKind;
  /** What a value must be, in words: "a positive whole number". */
  expected: string;
  /** Allowed values of an enum. */
  options?: readonly string[];
  /**
   * Set when the key's schema accepts exactly the values this names: `text` any string, `nonEmptyText`
   * a string of at least one character, `boolean` true or false, `option` one of `options`,
   * `textList` a list of strings, `object` an object whose keys all take such values (each optional;
   * keys the schema lacks are dropped). A value that passes is taken without building the key's zod
   * schema (~4.5 ms at start-up for three variables, ~5-6 ms for a small settings file); any other
   * value still goes to zod, which says what is wrong.
   */
  accepts?: 'text' | 'nonEmptyText' | 'boolean' | 'option' | 'textList' | 'object';
  /**
   * For a top-level key without `accepts` whose schema is made of plain parts only (the `hooks`
   * section): that schema as data (config/plain-schema.ts), so a settings file's section that fits
   * it is taken without building it in zod (~9 ms for two hooks, cold). Anything else goes to zod.
   */
  plain?: PlainSchema;
}

/** A zod schema made only of parts whose checks are simple enough to run without zod (config/plain-schema.ts). */
export type PlainSchema =
  | { type: 'string'; nonEmpty?: true }
  | { type: 'literal'; value: string }
  | { type: 'number'; positive?: true }
  | { type: 'boolean' }
  | { type: 'option'; options: string[] }
  | { type: 'list'; of: PlainSchema }
  | { type: 'object'; keys: Array<{ name: string; optional?: true; schema: PlainSchema }> };
