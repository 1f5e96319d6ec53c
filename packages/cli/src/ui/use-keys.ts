import { useStdin } from 'ink';
import { useEffect, useRef } from 'react';
import { KeyDecoder, type KeyEvent } from './keys.js';

/** Subscribes to raw terminal input (with raw mode on) and hands decoded keys to `handler`. */
export function useKeys(handler: (event: KeyEvent) => void): void {
  const { internal_eventEmitter: emitter, setRawMode, isRawModeSupported } = useStdin();
  const latest = useRef(handler);
  latest.current = handler;

  useEffect(() => {
    if (!isRawModeSupported) return;
    setRawMode(true);
    return () => setRawMode(false);
  }, [isRawModeSupported, setRawMode]);

  useEffect(() => {
    const decoder = new KeyDecoder();
    const onInput = (raw: string) => {
      for (const event of decoder.decode(raw)) latest.current(event);
    };
    emitter.on('input', onInput);
    return () => {
      emitter.off('input', onInput);
    };
  }, [emitter]);
}
