export { configDir, stateDir, sessionsDir, userSettingsPath, workspaceSettingsPath, localSettingsPath, workspaceSlug } from './paths.js';
export { settingsSchema, modelForProvider, CONFIG_DEFAULTS, DEFAULT_OLLAMA_HOST, PERMISSION_MODES, type BeansSettings, type BeansConfig } from './schema.js';
export { allSettingKeys, leafSettingKeys, findSettingKey, suggestSettingKey, type SettingKey, type SettingKind } from './setting-keys.js';
export { validateSettings } from './validate.js';
export {
  loadConfig,
  formatConfigSource,
  CONFIG_ENV_VARS,
  SETTINGS_FLAG,
  SETTING_SOURCES,
  type SettingSource,
  type LoadConfigOptions,
  type LoadedConfig,
  type ConfigEntry,
  type ConfigSource,
  type ConfigFlags,
} from './load-config.js';
export { setConfigValue, type SetConfigOptions, type SetConfigResult } from './set-config.js';
export {
  isTrusted,
  trustDecisionFor,
  setTrustDecision,
  readTrustDecisions,
  trustedFoldersPath,
  applyWorkspaceTrust,
  describeIgnored,
  type TrustDecision,
  type IgnoredRequest,
  type WorkspaceTrustOptions,
} from './trust.js';
export { readApprovedDeclarations, recordApprovedDeclarations, trustedDeclarationsPath } from './trusted-declarations.js';
export { showUntrusted, showSettingKey, showSettingValue } from './show-untrusted.js';
export { untrustedAllowedKeys } from './untrusted-settings.js';
