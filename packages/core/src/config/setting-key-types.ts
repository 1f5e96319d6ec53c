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
}
