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
}
