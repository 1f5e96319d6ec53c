// The terminal control sequences Beans writes itself (Ink writes its own frames): one place, so the
// chat, the early first frame and the hand-over to an editor or the shell say the same thing.

export const BRACKETED_PASTE_ON = '\x1b[?2004h';
export const BRACKETED_PASTE_OFF = '\x1b[?2004l';
export const SHOW_CURSOR = '\x1b[?25h';
export const HIDE_CURSOR = '\x1b[?25l';
/** Opens a synchronized update: the terminal shows nothing until the frame that closes it is written. */
export const SYNC_START = '\x1b[?2026h';
/** The alternate screen, cleared, cursor home. */
export const ALTERNATE_SCREEN_ON = '\x1b[?1049h\x1b[H\x1b[2J';
export const ALTERNATE_SCREEN_OFF = '\x1b[?1049l';
/** Erase the screen and the scrollback, cursor home: the terminal has reflowed rows we cannot fix. */
export const CLEAR_TERMINAL = '\x1b[2J\x1b[3J\x1b[H';
