import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Api, ModelInfo, ServerInfo, StoredSession } from './api.js';

const MODES: [string, string][] = [
  ['default', 'Ask before edits and commands'],
  ['acceptEdits', 'Accept edits, ask before commands'],
  ['plan', 'Plan only (no changes)'],
  ['bypassPermissions', 'Allow everything (yolo)'],
];

/** Starts a session: in the folder `beans serve` was started in unless another is typed, with a model of the provider's or the default. */
export function NewSessionForm({ api, onStarted }: { api: Api; onStarted: (id: string) => void }) {
  const [server, setServer] = useState<ServerInfo>();
  const [models, setModels] = useState<ModelInfo[]>([]);
  const [cwd, setCwd] = useState('');
  const [model, setModel] = useState('');
  const [mode, setMode] = useState('default');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [stored, setStored] = useState<StoredSession[]>([]);
  const [resume, setResume] = useState('');

  // Asked once; Start waits for it when pressed before the answer came (an empty folder is the server's).
  const serverInfo = useMemo(() => api.server(), [api]);

  useEffect(() => {
    void serverInfo.then(
      (info) => {
        setServer(info);
        setCwd((typed) => typed || info.cwd);
      },
      (failure: Error) => setError(failure.message),
    );
    void api.models().then(
      (answer) => setModels(answer.models),
      () => setModels([]),
    );
  }, [api, serverInfo]);

  // The folder's stored sessions, to continue one instead (asked again when the folder changes).
  useEffect(() => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api.storedSessions(cwd.trim() || undefined, controller.signal).then(
        (sessions) => {
          setStored(sessions);
          setResume((chosen) => (sessions.some((session) => session.id === chosen) ? chosen : ''));
        },
        () => !controller.signal.aborted && setStored([]),
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [api, cwd]);

  const start = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const folder = cwd.trim() || (await serverInfo).cwd;
      const { id } = await api.start({
        cwd: folder,
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(resume ? { resume } : {}),
        permissionMode: mode,
      });
      onStarted(id);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="new-session" onSubmit={(event) => void start(event)} aria-labelledby="new-session-title">
      <h2 id="new-session-title">New session</h2>
      <label>
        Folder
        <input
          type="text"
          value={cwd}
          onInput={(event) => setCwd(event.currentTarget.value)}
          spellcheck={false}
          autocomplete="off"
          placeholder={server?.cwd ?? 'the folder beans serve runs in'}
        />
      </label>
      <label>
        Model
        <input
          type="text"
          list="model-choices"
          value={model}
          placeholder={server?.model ? `${server.model} (default)` : 'the default'}
          onInput={(event) => setModel(event.currentTarget.value)}
          spellcheck={false}
          autocomplete="off"
        />
        <datalist id="model-choices">
          {models.map((entry) => (
            <option key={entry.name} value={entry.name} />
          ))}
        </datalist>
      </label>
      <label>
        Conversation
        <select value={resume} onChange={(event) => setResume(event.currentTarget.value)}>
          <option value="">A new conversation</option>
          {stored.map((session) => (
            <option key={session.id} value={session.id}>
              Continue: {session.title || 'untitled'} ({new Date(session.lastActivity).toLocaleString()}, {session.turns} turns)
            </option>
          ))}
        </select>
      </label>
      <label>
        Permissions
        <select value={mode} onChange={(event) => setMode(event.currentTarget.value)}>
          {MODES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Starting…' : 'Start'}
        </button>
        <a href="#" class="button">
          Cancel
        </a>
      </div>
    </form>
  );
}
