import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api, takeToken, type SessionSummary } from './api.js';
import { NewSessionForm } from './new-session.js';
import { SessionView } from './session-view.js';

// The page: the sessions this server hosts on the left (on a phone: their own screen), the open
// session or the form for a new one beside them. Where we are lives in the fragment
// (`#/session/<id>`, `#/new`), so the back button and a reload work.

type Route = { page: 'list' } | { page: 'new' } | { page: 'session'; id: string };

function routeOf(hash: string): Route {
  const session = /^#\/session\/(.+)$/.exec(hash);
  if (session) return { page: 'session', id: decodeURIComponent(session[1]) };
  if (hash === '#/new') return { page: 'new' };
  return { page: 'list' };
}

const go = (hash: string) => {
  window.location.hash = hash;
};

const STATE_LABELS: Record<SessionSummary['state'], string> = {
  running: 'running',
  waiting: 'waiting for you',
  idle: 'idle',
  done: 'stopped',
  failed: 'failed',
};

export function App() {
  const token = useMemo(() => takeToken(), []);
  const api = useMemo(() => (token ? new Api(token) : undefined), [token]);
  const [route, setRoute] = useState<Route>(() => routeOf(window.location.hash));
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [listError, setListError] = useState<string>();
  const refreshList = useRef<() => void>(() => undefined);

  useEffect(() => {
    const onHash = () => setRoute(routeOf(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (!api) return;
    let stopped = false;
    const refresh = () =>
      api.sessions().then(
        (list) => {
          if (stopped) return;
          setSessions(list);
          setListError(undefined);
        },
        (error: Error) => !stopped && setListError(error.message),
      );
    void refresh();
    refreshList.current = () => void refresh();
    // Polled (states change without an event of their own), and at once when the reader moves.
    const poll = () => void refresh();
    const timer = setInterval(poll, 3_000);
    window.addEventListener('hashchange', poll);
    return () => {
      stopped = true;
      clearInterval(timer);
      window.removeEventListener('hashchange', poll);
    };
  }, [api]);

  if (!api) {
    return (
      <main class="no-token">
        <h1>Beans</h1>
        <p>
          Open this page with the address <code>beans serve</code> printed: it ends with <code>#token=…</code>, which lets this page in (it stays in this tab
          and is never sent in an address).
        </p>
      </main>
    );
  }

  const current = route.page === 'session' ? route.id : undefined;
  return (
    <div class={`layout on-${route.page}`}>
      <nav class="sidebar" aria-label="Sessions">
        <header class="sidebar-head">
          <h1>Beans</h1>
          <button type="button" class="primary" onClick={() => go('#/new')}>
            New session
          </button>
        </header>
        {listError && (
          <p class="error" role="alert">
            {listError}
          </p>
        )}
        {sessions.length === 0 && !listError ? <p class="quiet">No sessions yet.</p> : null}
        <ul class="session-list">
          {sessions.map((session) => (
            <li key={session.id}>
              <a href={`#/session/${encodeURIComponent(session.id)}`} aria-current={session.id === current ? 'page' : undefined}>
                <span class="title">{session.title || 'Untitled session'}</span>
                <span class={`state state-${session.state}`}>{STATE_LABELS[session.state]}</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main class="content">
        {route.page === 'new' && <NewSessionForm api={api} onStarted={(id) => go(`#/session/${encodeURIComponent(id)}`)} />}
        {route.page === 'session' && (
          <SessionView
            key={route.id}
            api={api}
            id={route.id}
            summary={sessions.find((session) => session.id === route.id)}
            onChanged={() => refreshList.current()}
          />
        )}
        {route.page === 'list' && <p class="quiet welcome">Choose a session, or start a new one.</p>}
      </main>
    </div>
  );
}
