import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Picture } from './api.js';
import { atToken, completeAt, type AtToken } from './completion.js';
import { readPictures, type Attachment } from './pictures.js';

interface ComposerProps {
  api: Api;
  sessionId: string;
  running: boolean;
  onSend: (text: string, pictures: Picture[]) => Promise<void>;
  onStop: () => void;
}

/**
 * The message box: Enter sends (Shift+Enter is a new line), Esc stops a running turn, `@` completes
 * the workspace's file names (arrows choose, Enter or Tab takes one), and pictures pasted, dropped
 * or chosen go with the message. A message sent while a turn runs steers it.
 */
export function Composer({ api, sessionId, running, onSend, onStop }: ComposerProps) {
  const [text, setText] = useState('');
  const [pictures, setPictures] = useState<Attachment[]>([]);
  const [problem, setProblem] = useState<string>();
  const [choices, setChoices] = useState<{ token: AtToken; files: string[]; selected: number }>();
  const box = useRef<HTMLTextAreaElement>(null);
  const chooser = useRef<HTMLInputElement>(null);
  const lookup = useRef<AbortController | undefined>(undefined);

  useEffect(() => box.current?.focus(), [sessionId]);
  useEffect(() => () => pictures.forEach((picture) => URL.revokeObjectURL(picture.url)), [pictures]);

  const complete = (value: string, cursor: number) => {
    lookup.current?.abort();
    const token = atToken(value, cursor);
    if (!token) return setChoices(undefined);
    const controller = new AbortController();
    lookup.current = controller;
    api.files(sessionId, token.query, controller.signal).then(
      (files) => !controller.signal.aborted && setChoices(files.length > 0 ? { token, files, selected: 0 } : undefined),
      () => undefined,
    );
  };

  const take = (file: string) => {
    if (!choices) return;
    const { value, cursor } = completeAt(text, choices.token, file);
    setText(value);
    setChoices(undefined);
    requestAnimationFrame(() => box.current?.setSelectionRange(cursor, cursor));
  };

  const attach = async (files: Iterable<File>) => {
    setProblem(undefined);
    try {
      const added = await readPictures(files);
      setPictures((current) => [...current, ...added]);
    } catch (failure) {
      setProblem(failure instanceof Error ? failure.message : String(failure));
    }
  };

  const send = async () => {
    const words = text.trim();
    if (!words && pictures.length === 0) return;
    const sent = pictures;
    setText('');
    setPictures([]);
    setChoices(undefined);
    try {
      await onSend(
        words || 'What is in this picture?',
        sent.map(({ media_type, data }) => ({ media_type, data })),
      );
    } catch {
      // The session view shows what went wrong; the words come back so nothing typed is lost.
      setText(words);
      setPictures(sent);
    }
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (choices) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setChoices({ ...choices, selected: (choices.selected + step + choices.files.length) % choices.files.length });
        return;
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault();
        take(choices.files[choices.selected]);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setChoices(undefined);
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send();
    } else if (event.key === 'Escape' && running) {
      event.preventDefault();
      onStop();
    }
  };

  const listId = `files-${sessionId}`;
  return (
    <div
      class="composer"
      onDragOver={(event) => event.preventDefault()}
      onDrop={(event) => {
        event.preventDefault();
        if (event.dataTransfer?.files) void attach(event.dataTransfer.files);
      }}
    >
      {choices && (
        <ul class="choices" id={listId} role="listbox" aria-label="Files">
          {choices.files.map((file, index) => (
            <li
              key={file}
              id={`${listId}-${index}`}
              role="option"
              aria-selected={index === choices.selected}
              onMouseDown={(event) => {
                event.preventDefault();
                take(file);
              }}
            >
              {file}
            </li>
          ))}
        </ul>
      )}
      {pictures.length > 0 && (
        <ul class="pictures" aria-label="Pictures to send">
          {pictures.map((picture, index) => (
            <li key={picture.url}>
              <img src={picture.url} alt={picture.name} />
              <button type="button" aria-label={`Remove ${picture.name}`} onClick={() => setPictures(pictures.filter((_, at) => at !== index))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <div class="compose-row">
        <textarea
          ref={box}
          aria-label="Message"
          placeholder={running ? 'Steer the running turn… (Esc stops it)' : 'Message (Enter sends, Shift+Enter new line, @ for files)'}
          rows={2}
          value={text}
          aria-autocomplete="list"
          aria-controls={choices ? listId : undefined}
          aria-activedescendant={choices ? `${listId}-${choices.selected}` : undefined}
          onInput={(event) => {
            const element = event.currentTarget;
            setText(element.value);
            complete(element.value, element.selectionStart);
          }}
          onKeyDown={onKeyDown}
          onPaste={(event) => {
            const files = [...(event.clipboardData?.files ?? [])];
            if (files.some((file) => file.type.startsWith('image/'))) {
              event.preventDefault();
              void attach(files);
            }
          }}
          onBlur={() => setChoices(undefined)}
        />
        <div class="compose-buttons">
          <button
            type="button"
            class="quiet-button icon-button"
            aria-label="Attach pictures"
            title="Attach pictures (or paste or drop them)"
            onClick={() => chooser.current?.click()}
          >
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
              <path
                d="M16.5 6.5 8.6 14.4a2 2 0 1 0 2.8 2.8l8-8a4 4 0 0 0-5.6-5.6l-8 8a6 6 0 0 0 8.4 8.4l6.3-6.3"
                fill="none"
                stroke="currentColor"
                stroke-width="1.8"
                stroke-linecap="round"
              />
            </svg>
          </button>
          <input
            ref={chooser}
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            hidden
            onChange={(event) => {
              const input = event.currentTarget;
              if (input.files) void attach([...input.files]);
              input.value = '';
            }}
          />
          {running && (
            <button type="button" class="stop" onClick={onStop}>
              Stop
            </button>
          )}
          <button type="button" class="primary" onClick={() => void send()}>
            Send
          </button>
        </div>
      </div>
    </div>
  );
}
