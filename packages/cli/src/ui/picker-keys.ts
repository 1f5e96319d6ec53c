import type { ChatView } from './chat-view.js';
import type { KeyEvent } from './keys.js';
import { editQuery, movePicker, shownItems, type Picker } from './picker.js';

/** Keys while a picker is open: its own keys, moving, typing a search, Enter to choose, Esc to close. */
export function pickerKey(chat: ChatView, event: KeyEvent, picker: Picker): void {
  if (picker.searchable && (event.type === 'text' || event.name === 'backspace')) {
    chat.picker = editQuery(picker, event.type === 'text' ? event : { type: 'backspace' });
    return chat.changed();
  }
  if (event.type !== 'key') return;
  const key = picker.keys?.find((candidate) => candidate.name === event.name);
  if (key) {
    void Promise.resolve(key.press(picker)).then(
      (next) => {
        // Still the picker on screen (not closed or replaced meanwhile).
        if (chat.picker === picker) chat.picker = next;
        chat.changed();
      },
      (error: unknown) => chat.transcript.note('error', chat.describeError(error)),
    );
    return;
  }
  if (event.name === 'up' || event.name === 'down') chat.picker = movePicker(picker, event.name === 'up' ? -1 : 1);
  else if (event.name === 'pageup' || event.name === 'pagedown') chat.picker = movePicker(picker, event.name === 'pageup' ? -10 : 10);
  else if (event.name === 'escape') chat.picker = undefined;
  else if (event.name === 'enter') {
    chat.picker = undefined;
    const item = shownItems(picker)[picker.selected];
    if (item) void Promise.resolve(picker.onSelect(item.value)).catch((error: unknown) => chat.transcript.note('error', chat.describeError(error)));
  }
  chat.changed();
}
