import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Api, Picture, SessionSummary } from './api.js';
import { Composer } from './composer.js';
import { followEvents, type Connection } from './events.js';
import { ItemView } from './items.js';
import { applyMessage, emptyTranscript, openQuestions, type Transcript } from './transcript.js';

const CONNECTION_LABELS: Record<Connection, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  ended: 'ended',
};

/** One session: its transcript streaming live, the questions it asks, and the box to steer it. */
export function SessionView({ api, id, summary, onChanged }: { api: Api; id: string; summary?: SessionSummary; onChanged: () => void }) {
  const [transcript, setTranscript] = useState<Transcript>(emptyTranscript);
  const [connection, setConnection] = useState<{ state: Connection; detail?: string }>({ state: 'connecting' });
  const [error, setError] = useState<string>();
  // The provider's own word on its models' windows, until a result reports the session's (`modelUsage`).
  const [windows, setWindows] = useState<{ provider: string; byModel: Map<string, number> }>();
  useEffect(() => {
    api.models().then(
      ({ provider, models }) =>
        setWindows({ provider, byModel: new Map(models.flatMap((model) => (model.contextWindow ? [[model.name, model.contextWindow]] : []))) }),
      () => undefined,
    );
  }, [api]);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    const controller = new AbortController();
    // Messages are applied as they come, drawn at most once a frame (a fast stream sends hundreds).
    let current = emptyTranscript();
    let frame = 0;
    const apply = (message: unknown, key: string) => {
      current = applyMessage(current, message, key);
      frame ||= requestAnimationFrame(() => {
        frame = 0;
        setTranscript(current);
      });
    };
    void (async () => {
      // A resumed session: what was said before this server took it over comes first.
      const earlier = await api.transcript(id).catch(() => []);
      earlier.forEach((message, index) => apply(message, `t${index}`));
      await followEvents(
        api,
        id,
        { event: (eventId, message) => apply(message, `e${eventId}`), connection: (state, detail) => setConnection({ state, detail }) },
        controller.signal,
      );
    })();
    return () => {
      controller.abort();
      cancelAnimationFrame(frame);
    };
  }, [api, id]);

  // Follows the end of the transcript while the reader is there; leaves them be once they scroll up.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [transcript]);
  const onScroll = () => {
    const element = scroller.current;
    if (element) pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
  };

  const act = async (action: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await action();
      onChanged();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  const ended = connection.state === 'ended' || summary?.state === 'done';
  const waiting = openQuestions(transcript);
  // From the stream itself (a prompt starts a turn, its result ends it): the polled list lags behind.
  const running = !ended && (transcript.running || waiting.length > 0);
  const title = summary?.title || 'Untitled session';
  // A background session on a runner (beans serve with the runners' database): followed and answered here, driven there.
  const onRunner = summary?.branch !== undefined;

  return (
    <section class="session" aria-label={title}>
      <header class="session-head">
        <a href="#" class="back" aria-label="All sessions">
          ‹
        </a>
        <h2>{title}</h2>
        <p class="meta">
          <span>{[transcript.provider, transcript.model].filter(Boolean).join(' · ')}</span>
          <span title="What this session's runs cost on this server">{formatCost(transcript.costUsd)}</span>
          <span title="Tokens of the newest request (prompt and answer) in the model's context window">
            {formatContext(
              transcript.contextTokens,
              transcript.contextWindow ?? (windows?.provider === transcript.provider ? windows?.byModel.get(transcript.model ?? '') : undefined),
            )}
          </span>
          <span class={`connection connection-${connection.state}`} role="status" title={connection.detail}>
            {CONNECTION_LABELS[connection.state]}
          </span>
        </p>
        {!ended && !onRunner && (
          <button type="button" class="quiet-button" onClick={() => void act(() => api.stop(id))}>
            End session
          </button>
        )}
      </header>
      <div class="transcript" ref={scroller} onScroll={onScroll} role="log" aria-live="polite" aria-label="Transcript">
        {transcript.items.map((item) => (
          <ItemView key={item.key} item={item} onAnswer={(requestId, answer) => void act(() => api.answer(id, requestId, answer))} />
        ))}
        {running && waiting.length === 0 && <p class="working">Working…</p>}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {onRunner ? (
        <p class="quiet ended">
          {summary.runner ? `Runs on runner ${summary.runner}` : 'Queued for a runner'}, on branch {summary.branch}: its questions are answered here, its
          messages come from its prompt.
        </p>
      ) : ended ? (
        <p class="quiet ended">{connection.detail ?? 'This session was stopped.'} Its file stays: resume it with a new session.</p>
      ) : (
        <Composer
          api={api}
          sessionId={id}
          running={running}
          onSend={async (text: string, pictures: Picture[]) => {
            setError(undefined);
            try {
              await api.send(id, text, pictures);
              // The list (and this header) learn the new title and state now, not at the next poll.
              onChanged();
            } catch (failure) {
              setError(failure instanceof Error ? failure.message : String(failure));
              throw failure;
            }
          }}
          onStop={() => void act(() => api.interrupt(id))}
        />
      )}
    </section>
  );
}

function formatCost(usd: number): string {
  return usd >= 0.01 || usd === 0 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

function formatContext(used: number, window: number | undefined): string {
  const tokens = (count: number) => (count >= 1000 ? `${(count / 1000).toFixed(count >= 100_000 ? 0 : 1)}k` : String(count));
  if (!window) return `context ${tokens(used)}`;
  return `context ${tokens(used)} / ${tokens(window)} (${Math.round((used / window) * 100)}%)`;
}
