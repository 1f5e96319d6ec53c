import type { CommandContext } from './commands.js';
import type { ChatView } from './chat-view.js';
import type { StyledLine } from './styled.js';

/** What a built-in command may do to the chat: print, note, pick, run a task, redraw, leave. */
export function commandContext(chat: ChatView): CommandContext {
  return {
    host: chat.host,
    session: chat.session,
    width: chat.transcript.width,
    print: (lines: StyledLine[]) => {
      chat.transcript.output(lines);
      chat.changed();
    },
    note: (kind, text) => {
      chat.transcript.note(kind, text);
      chat.changed();
    },
    exit: (code) => chat.exit(code),
    runTask: (label, task) => chat.runTask(label, task),
    usage: chat.usage,
    openPicker: (picker) => {
      chat.picker = picker;
      chat.changed();
    },
    clearScreen: () => {
      chat.transcript.clear();
      chat.redraw();
    },
    setInput: (text) => {
      chat.input.setText(text);
      chat.changed();
    },
    reloadConversation: () => chat.reloadConversation(),
    editorMode: chat.input.vim ? 'vim' : 'normal',
    setEditorMode: (mode) => chat.input.setEditorMode(mode),
    theme: chat.theme,
    setTheme: (theme) => {
      chat.theme = theme;
      chat.redraw();
    },
    ...(chat.statusCommand ? { statusLine: chat.statusCommand } : {}),
    writeTerminal: (data) => {
      if (!chat.options.writeTerminal) return false;
      chat.options.writeTerminal(data);
      return true;
    },
  };
}
