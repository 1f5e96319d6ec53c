// A model in @anthropic-ai/sdk's table of deprecated models (resources/messages/messages.mjs,
// DEPRECATED_MODELS), for which the SDK warns through console.warn on every request. If an SDK upgrade
// drops it, pick another model from that table.
export const DEPRECATED_MODEL = 'claude-sonnet-4-5';
export const DEPRECATION = `The model '${DEPRECATED_MODEL}' is deprecated`;
