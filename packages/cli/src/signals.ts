/** The exit codes of a process ended by a signal, as shells report them. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * Ctrl+C, SIGTERM and SIGHUP all mean "stop": the first one calls `stop` (abort the turn, let tools
 * end their process groups, flush the session); a second one exits at once. Returns the remover.
 */
export function onStopSignals(stop: (signal: StopSignal) => void): () => void {
  let received: StopSignal | undefined;
  const handlers = (Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]).map((signal) => {
    const handler = () => {
      if (received) process.exit(SIGNAL_EXIT_CODES[received]);
      received = signal;
      stop(signal);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => handlers.forEach((remove) => remove());
}
