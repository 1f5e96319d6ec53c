import { useMemo, useState } from 'preact/hooks';
import { highlight, languageOf, renderMarkdown } from './markdown.js';
import { changeCounts, changeRows, toolSummary, type DiffRow } from './tool-details.js';
import type { Item, QuestionItem, ToolItem } from './transcript.js';

export type Answer = { behavior: 'allow' | 'deny'; always?: boolean; message?: string };

/** One entry of the transcript. Model and tool text is drawn as text; only the Markdown renderer's escaped HTML goes in as HTML. */
export function ItemView({ item, onAnswer }: { item: Item; onAnswer: (requestId: string, answer: Answer) => void }) {
  switch (item.kind) {
    case 'user':
      return (
        <div class="message user">
          <p class="who">You</p>
          <p class="text">{item.text}</p>
          {item.pictures > 0 && <p class="quiet">{item.pictures === 1 ? '1 picture' : `${item.pictures} pictures`}</p>}
        </div>
      );
    case 'assistant':
      return <AssistantView text={item.text} thinking={item.thinking} live={item.live} />;
    case 'tool':
      return <ToolView item={item} />;
    case 'question':
      return <QuestionView item={item} onAnswer={onAnswer} />;
    case 'result':
      return (
        <p class={`result ${item.ok ? 'ok' : 'failed'}`}>
          {item.ok ? 'Done' : item.subtype === 'error_during_execution' && item.errors[0] === 'Interrupted.' ? 'Stopped' : 'Failed'}
          {item.durationMs > 0 && ` in ${(item.durationMs / 1000).toFixed(1)} s`}
          {item.costUsd > 0 && ` · $${item.costUsd.toFixed(4)}`}
          {!item.ok && item.errors.length > 0 && item.errors[0] !== 'Interrupted.' && <span class="errors">: {item.errors.join(' ')}</span>}
        </p>
      );
    case 'notice':
      return <p class="notice">{item.text}</p>;
  }
}

function AssistantView({ text, thinking, live }: { text: string; thinking: string; live: boolean }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return (
    <div class={`message assistant${live ? ' live' : ''}`}>
      {thinking && (
        <details class="thinking">
          <summary>Thinking</summary>
          <p class="text">{thinking}</p>
        </details>
      )}
      <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />
    </div>
  );
}

const MAX_ROWS = 400;

function DiffView({ rows, file }: { rows: DiffRow[]; file?: string }) {
  const language = file ? languageOf(file) : undefined;
  const shown = rows.slice(0, MAX_ROWS);
  return (
    <pre class="diff">
      {shown.map((row, index) => (
        <span key={index} class={row.sign === '+' ? 'add' : row.sign === '-' ? 'del' : 'ctx'}>
          <span class="sign" aria-hidden="true">
            {row.sign}
          </span>
          <span dangerouslySetInnerHTML={{ __html: highlight(row.text, language) }} />
          {'\n'}
        </span>
      ))}
      {rows.length > shown.length && <span class="ctx">… {rows.length - shown.length} more lines</span>}
    </pre>
  );
}

function ToolView({ item }: { item: ToolItem }) {
  const rows = changeRows(item.name, item.input);
  const file = typeof item.input.path === 'string' ? item.input.path : undefined;
  const counts = rows ? changeCounts(rows) : undefined;
  const state = !item.result ? 'running' : item.denied ? 'denied' : item.result.isError ? 'error' : 'ok';
  const icon = { running: '…', denied: '⊘', error: '✗', ok: '✓' }[state];
  const summary = toolSummary(item.name, item.input);
  return (
    <div class={`tool tool-${state}`}>
      <p class="tool-head">
        <span class="icon" aria-label={state}>
          {icon}
        </span>{' '}
        <strong>{item.name}</strong> <span class="summary">{summary}</span>
        {counts && state === 'ok' && (
          <>
            {' '}
            <span class="added">+{counts.added}</span> <span class="removed">-{counts.removed}</span>
          </>
        )}
      </p>
      {rows && state === 'ok' && <DiffView rows={rows} file={file} />}
      {item.result && item.result.text.trim() && (
        <details class="output">
          <summary>{state === 'ok' ? 'Output' : state === 'denied' ? 'Why it was denied' : 'Error'}</summary>
          <pre>{item.result.text}</pre>
        </details>
      )}
    </div>
  );
}

function QuestionView({ item, onAnswer }: { item: QuestionItem; onAnswer: (requestId: string, answer: Answer) => void }) {
  const [reason, setReason] = useState('');
  const rows = changeRows(item.toolName, item.input);
  const summary = toolSummary(item.toolName, item.input);
  const command = typeof item.input.command === 'string' ? item.input.command : undefined;
  const titleId = `question-${item.requestId}`;
  if (item.resolved) {
    const said = { allow: 'Allowed', deny: 'Denied', cancelled: 'Withdrawn (the turn was stopped)' }[item.resolved];
    return (
      <p class="question-resolved">
        {said}: {item.toolName} {summary}
      </p>
    );
  }
  return (
    <div class="question" role="group" aria-labelledby={titleId}>
      <p class="question-title" id={titleId}>
        Allow <strong>{item.toolName}</strong> {summary && <span class="summary">{summary}</span>}?
      </p>
      {rows ? <DiffView rows={rows} file={typeof item.input.path === 'string' ? item.input.path : undefined} /> : null}
      {!rows && command ? <pre class="command">$ {command}</pre> : null}
      {!rows && !command ? <pre class="input">{JSON.stringify(item.input, null, 2)}</pre> : null}
      <div class="answers">
        <button type="button" class="allow" onClick={() => onAnswer(item.requestId, { behavior: 'allow' })}>
          Allow
        </button>
        <button
          type="button"
          class="always"
          onClick={() => onAnswer(item.requestId, { behavior: 'allow', always: true })}
          title="Allow such calls for the rest of this session"
        >
          Always
        </button>
        <button type="button" class="deny" onClick={() => onAnswer(item.requestId, { behavior: 'deny', ...(reason.trim() ? { message: reason.trim() } : {}) })}>
          Deny
        </button>
        <input
          type="text"
          class="reason"
          aria-label="Why not (optional)"
          placeholder="Why not (optional)"
          value={reason}
          onInput={(event) => setReason(event.currentTarget.value)}
        />
      </div>
    </div>
  );
}
