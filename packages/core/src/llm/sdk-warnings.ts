/** Warnings already shown in this process. */
const shown = new Set<string>();

/**
 * Provider SDKs warn through console.warn on every request (Anthropic's, for a model near its end of
 * life). From this call on, each distinct warning through `target.warn` as it is now shows once per
 * process. Core never calls it (a program using the library keeps its console as it is): Beans' front
 * ends do, and the chat again once Ink has replaced console.warn to print above its live area.
 */
export function sdkWarningsOnce(target: Pick<Console, 'warn'> = console): void {
  const warn = target.warn;
  target.warn = (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (shown.has(text)) return;
    shown.add(text);
    warn.apply(target, args);
  };
}
