/**
 * The live log: protocol messages (→ out, ← in), the server's events from /events, and the console's own
 * notes. Each entry is one line with its JSON behind a toggle, and carries data attributes to find it by:
 * `data-kind` (protocol, server-event, note), and `data-dir`/`data-method`, `data-event`/`data-session`/
 * `data-action`/`data-is-error`.
 */
import { byId, h, isObject, json } from './dom.js';
import type { ServerEventRecord } from './events.js';

const MAX_ENTRIES = 800;
const list = byId<HTMLOListElement>('log');

interface Entry {
  kind: 'protocol' | 'server-event' | 'note';
  /** The symbol at the start of the line, and what it says to a screen reader. */
  symbol: [string, string];
  label: string;
  text?: string;
  /** Shown pretty behind the toggle. */
  detail?: unknown;
  tone?: 'out' | 'in' | 'event' | 'info' | 'ok' | 'error';
  attrs?: Record<string, string | undefined>;
}

const clock = () => new Date().toTimeString().slice(0, 8);

function add(entry: Entry): HTMLLIElement {
  const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 32;
  const attrs: Record<string, string | undefined> = { class: `entry ${entry.tone ?? 'info'}`, 'data-kind': entry.kind };
  for (const [name, value] of Object.entries(entry.attrs ?? {})) attrs[`data-${name}`] = value;
  const row = [
    h('span', { class: 'sym', 'aria-hidden': 'true' }, entry.symbol[0]),
    h('span', { class: 'sr-only' }, `${entry.symbol[1]} `),
    h('time', {}, clock()),
    h('span', { class: 'label' }, entry.label),
    entry.text ? h('span', { class: 'text' }, entry.text) : undefined,
  ];
  const body =
    entry.detail === undefined
      ? h('div', { class: 'row' }, ...row)
      : h('details', {}, h('summary', { class: 'row' }, ...row), h('pre', {}, json(entry.detail, true)));
  const li = h('li', attrs, body);
  list.append(li);
  while (list.childElementCount > MAX_ENTRIES) list.firstElementChild!.remove();
  if (stick) list.scrollTop = list.scrollHeight;
  return li;
}

/** A JSON-RPC message the console sent (out) or received (in). */
export function logMessage(dir: 'out' | 'in', message: unknown): void {
  const m = isObject(message) ? message : {};
  const id = 'id' in m ? ` #${json(m.id)}` : '';
  const result = isObject(m.result) ? m.result : undefined;
  const error = isObject(m.error) ? m.error : undefined;
  const label =
    typeof m.method === 'string'
      ? `${m.method}${id}`
      : error
        ? `error${id} ${json(error.code)}`
        : result?.resultType === 'input_required'
          ? `input_required${id} ${Object.keys(isObject(result.inputRequests) ? result.inputRequests : {}).join(' ')}`.trim()
          : `result${id}`;
  add({
    kind: 'protocol',
    symbol: dir === 'out' ? ['→', 'sent'] : ['←', 'received'],
    tone: error || result?.isError === true ? 'error' : dir,
    label,
    text: json(message),
    detail: message,
    attrs: { dir, method: typeof m.method === 'string' ? m.method : undefined, id: 'id' in m ? json(m.id) : undefined },
  });
}

/** What a server event says, in a few words. */
function summarize(record: ServerEventRecord): string {
  const d = record.detail ?? {};
  const s = record.session;
  switch (record.event) {
    case 'sessionNew':
    case 'initialized':
      return s ? `${s.client ?? 'a client'} · ${s.era} ${s.protocolVersion ?? ''}` : '';
    case 'sessionEnd':
      return String(d.reason ?? '');
    case 'requestTool':
      return `${d.name} ${json(d.arguments ?? {})}`;
    case 'progress':
    case 'cancelled':
      return json(d.params);
    case 'loggingSetLevel':
      return String(d.level);
    case 'taskCreated':
    case 'taskStatus':
      return `${String(d.taskId).slice(0, 8)} ${d.status}${d.statusMessage ? ` · ${d.statusMessage}` : ''}${Array.isArray(d.inputRequests) ? ` · asks ${d.inputRequests.join(', ')}` : ''}`;
    case 'error':
      return String(d.message);
  }
  if (d.isError) return `error ${d.errorCode} ${d.errorMessage ?? ''}`;
  if (record.event === 'responseElicitationCreate') return `${d.action}${d.content ? ` ${json(d.content)}` : ''}`;
  if (record.event === 'responseSamplingCreateMessage') return `${d.model}: ${json(d.content)}`;
  if (record.event === 'responseRootsList') return json(d.roots);
  return json(d);
}

export function logServerEvent(record: ServerEventRecord): void {
  const d = record.detail ?? {};
  const session = record.session?.id.slice(0, 8);
  const failed = d.isError === true || record.event === 'error';
  add({
    kind: 'server-event',
    symbol: ['◆', 'server event'],
    tone: failed ? 'error' : 'event',
    label: `${record.event}${session ? ` · ${session}` : ''}`,
    text: summarize(record),
    detail: record,
    attrs: {
      event: record.event,
      session,
      action: typeof d.action === 'string' ? d.action : undefined,
      'is-error': typeof d.isError === 'boolean' ? String(d.isError) : undefined,
    },
  });
}

/** A line of the console's own: connected, a call's result, an error. */
export function note(text: string, tone: 'info' | 'ok' | 'error' = 'info', detail?: unknown): void {
  add({ kind: 'note', symbol: tone === 'error' ? ['✕', 'error'] : tone === 'ok' ? ['✓', 'done'] : ['•', 'note'], tone, label: text, detail });
}

// The filters (each kind on or off) and Clear.
for (const box of document.querySelectorAll<HTMLInputElement>('input[name="show"]')) {
  box.addEventListener('change', () => list.classList.toggle(`hide-${box.value}`, !box.checked));
}
byId('clear-log').addEventListener('click', () => list.replaceChildren());
