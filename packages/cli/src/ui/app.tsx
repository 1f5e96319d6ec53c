import { Static, useStdout } from 'ink';
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ChatController } from './controller.js';
import { layoutLive } from './layout.js';
import { BlockText, Lines, NoColorContext, ThemeContext } from './lines-view.js';
import { THEMES } from './theme.js';
import { useKeys } from './use-keys.js';

const FALLBACK = { columns: 80, rows: 24 };

function useScreen(onWidth: (width: number) => void) {
  const { stdout } = useStdout();
  const read = () => ({ width: Math.max(20, stdout.columns || FALLBACK.columns), rows: Math.max(6, stdout.rows || FALLBACK.rows) });
  const [screen, setScreen] = useState(read);
  useEffect(() => {
    const onResize = () => {
      const next = read();
      setScreen(next);
      onWidth(next.width);
    };
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // `read` and `onWidth` close over stable objects.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout]);
  return screen;
}

/** Re-renders on a timer while something moves (spinners, elapsed seconds, the Ctrl+C hint). */
function useTicker(active: boolean): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((tick) => tick + 1), 120);
    return () => clearInterval(timer);
  }, [active]);
}

/**
 * Finished rows go to <Static> (written once, then left to the terminal's scrollback); the live
 * area below is laid out to fit the screen.
 */
export function ChatApp({ controller, noColor, sharedProcess = false }: { controller: ChatController; noColor: boolean; sharedProcess?: boolean }) {
  useSyncExternalStore(controller.subscribe, controller.getVersion);
  const screen = useScreen((width) => controller.setWidth(width));
  useKeys(controller.handleKey, () => controller.startingUp);
  const moving = controller.busy || controller.transcript.hasLive || controller.hint !== undefined;
  useTicker(moving);
  const now = Date.now();
  if (controller.hint && controller.hint.until <= now) controller.hint = undefined;
  const live = layoutLive(controller, screen, now);
  controller.liveLines = live;
  return (
    <NoColorContext.Provider value={noColor}>
      <ThemeContext.Provider value={THEMES[controller.theme]}>
        {sharedProcess ? (
          <SharedStatic blocks={controller.blocks} />
        ) : (
          <Static items={controller.blocks}>{(block) => <BlockText key={block.id} lines={block.lines} />}</Static>
        )}
        <Lines lines={live} />
      </ThemeContext.Provider>
    </NoColorContext.Provider>
  );
}

/**
 * <Static> for a chat drawn beside others in one process (attached views in `beans serve`). Ink's
 * reconciler remembers only the newest root that made a <Static> (a module variable) and marks that
 * root for the immediate render new static rows need; another root's rows then wait for a throttled
 * render and are gone before it runs. A <Static> made anew for each batch of new rows marks its own
 * root: it holds only the rows not yet printed, so nothing is printed twice.
 */
function SharedStatic({ blocks }: { blocks: ChatController['blocks'] }) {
  const printed = useRef(0);
  // A redraw starts the list again (run-chat mounts a fresh view for it).
  if (blocks.length < printed.current) printed.current = 0;
  const from = printed.current;
  // Synchronously after the commit, so the next batch always gets a <Static> of its own.
  useLayoutEffect(() => {
    printed.current = blocks.length;
  }, [blocks.length]);
  return (
    <Static key={from} items={blocks.slice(from)}>
      {(block) => <BlockText key={block.id} lines={block.lines} />}
    </Static>
  );
}
