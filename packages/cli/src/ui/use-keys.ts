import { useStdin } from 'ink';
import { useEffect, useRef } from 'react';
import { KeyDecoder, typedReads, type KeyEvent } from './keys.js';

/**
 * Subscribes to raw terminal input (with raw mode on) and hands decoded keys to `handler`; while
 * `typedAhead()` says so, each read is split at its typed Enters first (keys.ts typedReads).
 */
export function useKeys(handler: (event: KeyEvent) => void, typedAhead: () => boolean = () => false): void {
  const { internal_eventEmitter: emitter, setRawMode, isRawModeSupported } = useStdin();
  const latest = useRef(handler);
  latest.current = handler;
  const splitting = useRef(typedAhead);
  splitting.current = typedAhead;

  useEffect(() => {
    if (!isRawModeSupported) return;
    setRawMode(true);
    return () => setRawMode(false);
  }, [isRawModeSupported, setRawMode]);

  useEffect(() => {
    const decoder = new KeyDecoder();
    const onInput = (raw: string) => {
      for (const read of splitting.current() ? typedReads(raw) : [raw]) for (const event of decoder.decode(read)) latest.current(event);
    };
    emitter.on('input', onInput);
    return () => {
      emitter.off('input', onInput);
    };
  }, [emitter]);
}
