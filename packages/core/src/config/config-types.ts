import type { BeansConfig } from './schema.js';

// The loaded configuration's shape, in its own file so trust.ts can name it without importing
// load-config.ts (which applies trust).
export type ConfigSource = 'flag' | 'env' | 'default' | { file: string };

export interface ConfigEntry {
  /** Dotted leaf key, e.g. `permissions.mode`. */
  key: string;
  value: unknown;
  /** Where the effective value came from (for a merged list: its highest-precedence part). */
  source: ConfigSource;
  /** Every layer that contributed, in list order; present only when a list was merged from several. */
  sources?: ConfigSource[];
  /** For a concatenated list: where each item of `value` came from (its first layer), in order. */
  itemSources?: ConfigSource[];
}

export interface LoadedConfig {
  /** Typed, with defaults applied. */
  values: BeansConfig;
  /** One per leaf key that has a value, in schema order, for `beans config`. */
  entries: ConfigEntry[];
  /** Unknown keys and the like: show them, then carry on. */
  warnings: string[];
  /** Settings files that exist and were read, highest precedence first. */
  files: string[];
}
