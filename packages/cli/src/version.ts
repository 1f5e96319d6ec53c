// Only the tiny version module of core: `--version` must not load the runtime.
export { VERSION } from '@beans/core/version';
