/** How the chat controller reaches its terminal; run-chat.tsx supplies it. */
export interface ControllerOptions {
  width: number;
  /** Called once when the user leaves; the code is the process exit code. */
  exit(code: number): void;
  /** Clears the terminal and mounts the view afresh (run-chat); the controller lays rows out first. */
  repaint?(): void;
  /** How long after a turn the Notification hooks hear that the agent waits for input (default a minute). */
  idleNoticeMs?: number;
  /** Writes control data to the terminal as it is (OSC 52 for /copy); absent when there is no terminal. */
  writeTerminal?(data: string): void;
  /** Ctrl+G: the draft edited in the user's editor, the terminal handed over meanwhile (run-chat). */
  editDraft?(draft: string): { text: string } | { error: string };
  /** Ctrl+Z: stops the process as a shell's job (run-chat); returns once it is continued (`fg`). */
  suspend?(): void;
  /**
   * Attached to a served session (`beans attach`): leaving closes this view only; the running turn
   * goes on and open questions stay for the other clients to answer.
   */
  leaveRunning?: boolean;
}
