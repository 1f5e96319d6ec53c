import type { Builtin } from './command-kit.js';

/** `/vim`: switches the input between vim key bindings and the usual ones, and remembers the choice. */
export const VIM_BUILTINS: Record<string, Builtin> = {
  vim: {
    description: 'switch the input between vim key bindings (normal/insert modes) and the usual ones',
    async run(_args, { host, editorMode, setEditorMode, note }) {
      const mode = editorMode === 'vim' ? 'normal' : 'vim';
      setEditorMode(mode);
      const said =
        mode === 'vim' ? 'Vim mode on: Esc for normal mode (h j k l w b e 0 $, x, dd, cw, u...), i to insert.' : 'Vim mode off: the usual key bindings.';
      try {
        const file = await host.saveUserSetting('editorMode', mode);
        note('info', `${said} (editorMode "${mode}" saved in ${file})`);
      } catch (error) {
        note('error', `${said} For this session only: the setting could not be saved: ${(error as Error).message}`);
      }
    },
  },
};
