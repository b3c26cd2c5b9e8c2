/**
 * The Switchboard console: connects to an MCP server with McpClient (WebSocket or Streamable HTTP, either
 * era), lists its tools and calls them with forms made from their inputSchema, answers what the server asks
 * (elicitation forms and URLs, sampling, roots) through the user, and logs every protocol message and
 * every event of the demo server's /events feed.
 */
import {
  BrowserWebSocketClientTransport,
  type CallToolResult,
  escapeControls,
  type ClientEra,
  type ClientTransport,
  McpClient,
  McpError,
  RequestCancelledError,
  StreamableHttpClientTransport,
  type Tool,
} from '../../src/browser.js';
import { askElicitation, askSampling, elicitationCompleted } from './ask.js';
import { byId, errorText, fill, h, isObject, json, setText } from './dom.js';
import { buildFields, collect } from './form.js';
import type { ServerEventRecord } from './events.js';
import { logMessage, logServerEvent, note } from './log.js';

const connectForm = byId<HTMLFormElement>('connect-form');
const urlInput = byId<HTMLInputElement>('url');
const rootsInput = byId<HTMLTextAreaElement>('roots');
const connectButton = byId<HTMLButtonElement>('connect');
const disconnectButton = byId<HTMLButtonElement>('disconnect');
const refreshButton = byId<HTMLButtonElement>('refresh-tools');
const toolsList = byId<HTMLUListElement>('tools');
const toolsEmpty = byId('tools-empty');
const errors = byId('errors');

let client: McpClient | undefined;

// ---- status and errors ---------------------------------------------------------------------------------

function setStatus(state: 'disconnected' | 'connecting' | 'connected', text: string): void {
  const status = byId('status');
  status.dataset.state = state;
  setText(status, text);
}

function showError(text: string): void {
  note(text, 'error');
  const dismiss = h('button', { type: 'button', class: 'small', 'aria-label': 'Dismiss this error' }, '×');
  const item = h('div', { class: 'error-item' }, h('p', {}, text), dismiss);
  dismiss.addEventListener('click', () => item.remove());
  errors.append(item);
  while (errors.childElementCount > 3) errors.firstElementChild!.remove();
}

// ---- connecting ----------------------------------------------------------------------------------------

/** The same origin's /mcp, over WebSocket or HTTP. */
function urlFor(kind: string, current: string): string {
  let url: URL;
  try {
    url = new URL(current);
  } catch {
    url = new URL('/mcp', location.href);
  }
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  url.protocol = kind === 'websocket' ? (secure ? 'wss:' : 'ws:') : secure ? 'https:' : 'http:';
  return url.href;
}
urlInput.value = urlFor('websocket', new URL('/mcp', location.href).href);
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="transport"]')) {
  radio.addEventListener('change', () => (urlInput.value = urlFor(radio.value, urlInput.value)));
}

/** The transport, wrapped so that every message in and out is logged before it goes on. */
function recorded(inner: ClientTransport): ClientTransport {
  const wrapper: ClientTransport = {
    kind: inner.kind,
    cancelsByClosingStream: inner.cancelsByClosingStream,
    start: (sink) =>
      inner.start({
        message: (message) => {
          logMessage('in', message);
          sink.message(message);
        },
        error: (error) => sink.error(error),
        closed: (reason) => sink.closed(reason),
      }),
    send: (message, context) => {
      logMessage('out', message);
      return inner.send(message, context);
    },
    close: () => inner.close(),
  };
  if (inner.sessionReady) wrapper.sessionReady = (version) => inner.sessionReady!(version);
  return wrapper;
}

/** The roots the console shares: one URI a line. */
function roots(): { uri: string; name?: string }[] {
  return rootsInput.value
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((uri) => ({ uri, name: uri.replace(/\/+$/, '').split('/').pop() || uri }));
}
rootsInput.addEventListener('change', () => {
  if (client?.connected && client.era === 'legacy') client.sendRootsListChanged().catch((err) => showError(errorText(err)));
});

function serverName(of: McpClient): string {
  return of.serverInfo?.title ?? of.serverInfo?.name ?? 'The server';
}

function setConnected(connected: boolean): void {
  for (const input of connectForm.querySelectorAll<HTMLInputElement>('fieldset input, #url')) input.disabled = connected;
  connectButton.disabled = connected;
  disconnectButton.disabled = !connected;
  refreshButton.disabled = !connected;
  byId('server').hidden = !connected;
  if (!connected) {
    toolsList.replaceChildren();
    toolsEmpty.hidden = false;
    toolsEmpty.textContent = "Connect to list the server's tools.";
  }
}

connectForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!connectForm.reportValidity() || client) return;
  const data = new FormData(connectForm);
  const kind = data.get('transport') === 'http' ? 'http' : 'websocket';
  const era = String(data.get('era')) as ClientEra;
  const url = urlInput.value;
  const next = new McpClient(
    { name: 'switchboard-console', version: '0.1.0' },
    // A person answers the questions: calls wait for them (10 minutes) rather than the usual minute.
    // It follows tasks (2026-07-28): a tool that becomes one is polled, and its questions asked here as any others.
    { era, requestTimeoutMs: 600_000, tasks: true, capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } } },
  );
  next.onElicitation((params, ctx) => askElicitation(serverName(next), params, ctx));
  next.onSampling((params, ctx) => askSampling(serverName(next), params, ctx));
  next.onRoots(() => {
    const list = roots();
    note(`Answered roots/list with ${list.length} root${list.length === 1 ? '' : 's'}`);
    return { roots: list };
  });
  next.on('elicitationComplete', (id) => {
    note(`The server completed URL elicitation ${id.slice(0, 8)}`, 'ok');
    elicitationCompleted(id);
  });
  next.on('error', (err) => showError(err.message));
  next.on('close', (reason) => {
    if (client !== next) return;
    client = undefined;
    setConnected(false);
    setStatus('disconnected', 'Disconnected');
    if (reason === 'closed by the client') note('Disconnected');
    else showError(`The connection ended: ${reason}`);
  });

  errors.replaceChildren();
  setStatus('connecting', `Connecting over ${kind === 'http' ? 'HTTP' : 'WebSocket'}…`);
  connectButton.disabled = true;
  note(`Connecting to ${url} (${kind === 'http' ? 'Streamable HTTP' : 'WebSocket'}, era ${era})`);
  try {
    const transport = kind === 'http' ? new StreamableHttpClientTransport(url) : new BrowserWebSocketClientTransport(url);
    await next.connect(recorded(transport), { timeoutMs: 15_000 });
  } catch (err) {
    setStatus('disconnected', 'Disconnected');
    connectButton.disabled = false;
    showError(`Could not connect: ${errorText(err)}`);
    return;
  }
  client = next;
  const info = next.serverInfo;
  setText(byId('server-name'), info ? `${info.title ?? info.name} · ${info.name} ${info.version}` : 'unknown');
  setText(byId('server-protocol'), next.protocolVersion ?? '');
  setText(byId('server-era'), `${next.era} · ${kind === 'http' ? 'Streamable HTTP' : 'WebSocket'}`);
  setText(byId('instructions-text'), next.instructions ?? '');
  const instructions = byId<HTMLDetailsElement>('server-instructions');
  instructions.hidden = !next.instructions;
  instructions.open = true;
  setConnected(true);
  setStatus('connected', `Connected · ${next.era} ${next.protocolVersion}`);
  note(`Connected to ${info?.name ?? 'the server'} over ${next.protocolVersion} (${next.era})`, 'ok');
  await loadTools();
});

disconnectButton.addEventListener('click', () => void client?.close());
refreshButton.addEventListener('click', () => void loadTools());

// ---- tools ---------------------------------------------------------------------------------------------

/** A task's status (SEP-2663), as the running call shows it. */
const TASK_STATUS: Record<string, string> = {
  working: 'working',
  input_required: 'waiting for your answer',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

async function loadTools(): Promise<void> {
  const from = client;
  if (!from) return;
  try {
    // Every page, but never forever: a server that repeats its cursor is stopped (and told on `error`).
    const tools = await from.listAllTools();
    if (client !== from) return;
    toolsList.replaceChildren(...tools.map(toolItem));
    toolsEmpty.hidden = tools.length > 0;
    toolsEmpty.textContent = 'The server has no tools.';
  } catch (err) {
    showError(`Could not list the tools: ${errorText(err)}`);
  }
}

function toolItem(tool: Tool): HTMLLIElement {
  const fields = buildFields(tool.inputSchema);
  const call = h('button', { type: 'submit', class: 'primary' }, 'Call', h('span', { class: 'sr-only' }, ` ${tool.name}`));
  const cancel = h('button', { type: 'button', class: 'danger', hidden: true }, 'Cancel', h('span', { class: 'sr-only' }, ` ${tool.name}`));
  const progress = h('progress', { 'aria-label': escapeControls(`Progress of ${tool.name}`) });
  const progressText = h('span', { class: 'muted' });
  const running = h('div', { class: 'running', hidden: true }, progress, progressText);
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'tool-form', novalidate: true, 'data-tool': tool.name },
    fields.length ? h('div', { class: 'fields' }, ...fields.map((field) => field.element)) : h('p', { class: 'muted' }, 'No arguments.'),
    h('div', { class: 'actions' }, call, cancel, running),
    result,
  );
  let controller: AbortController | undefined;
  let lastTaskStatus: string | undefined;
  cancel.addEventListener('click', () => controller?.abort('cancelled by the user'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const args = collect(fields);
    const from = client;
    if (!args || !from || controller) return;
    controller = new AbortController();
    lastTaskStatus = undefined;
    call.disabled = true;
    cancel.hidden = running.hidden = false;
    progress.removeAttribute('value');
    progressText.textContent = 'Running…';
    result.replaceChildren();
    result.dataset.state = 'running';
    try {
      const answer = await from.callTool(tool.name, args, {
        signal: controller.signal,
        onProgress: ({ progress: done, total, message }) => {
          if (typeof total === 'number') progress.max = total;
          progress.value = done;
          setText(progressText, message ?? `${done}${typeof total === 'number' ? ` of ${total}` : ''}`);
        },
        onTask: (task) => {
          const status = TASK_STATUS[task.status] ?? task.status;
          setText(progressText, `Task ${status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
          result.dataset.task = task.status;
          if (task.status !== lastTaskStatus) note(`${tool.name} task ${task.taskId.slice(0, 8)} ${status}`);
          lastTaskStatus = task.status;
        },
      });
      showResult(result, answer);
      note(`${tool.name} ${answer.isError ? 'returned an error' : 'returned'}`, answer.isError ? 'error' : 'ok');
    } catch (err) {
      const cancelled = err instanceof RequestCancelledError;
      result.dataset.state = cancelled ? 'cancelled' : 'failed';
      fill(
        result,
        h('p', { class: `flag ${cancelled ? 'neutral' : 'bad'}` }, cancelled ? 'Cancelled' : 'Failed'),
        h('p', {}, errorText(err)),
        err instanceof McpError && err.data !== undefined ? h('pre', { class: 'json' }, json(err.data, true)) : undefined,
      );
      note(`${tool.name}: ${errorText(err)}`, cancelled ? 'info' : 'error');
    } finally {
      controller = undefined;
      call.disabled = false;
      cancel.hidden = running.hidden = true;
    }
  });
  const hints = tool.annotations ?? {};
  return h(
    'li',
    { class: 'tool', 'data-tool': tool.name },
    h(
      'details',
      {},
      h(
        'summary',
        {},
        h('code', { class: 'tool-name' }, tool.name),
        tool.title ? h('span', { class: 'tool-title' }, tool.title) : undefined,
        hints.readOnlyHint ? h('span', { class: 'badge' }, 'read-only') : undefined,
        hints.destructiveHint ? h('span', { class: 'badge danger' }, 'destructive') : undefined,
      ),
      tool.description ? h('p', { class: 'desc' }, tool.description) : undefined,
      form,
    ),
  );
}

function showResult(box: HTMLElement, result: CallToolResult): void {
  box.dataset.state = result.isError ? 'error' : 'ok';
  fill(
    box,
    h('p', { class: `flag ${result.isError ? 'bad' : 'good'}` }, result.isError ? 'Tool error (isError)' : 'Result'),
    ...(Array.isArray(result.content) ? result.content : []).map((block) => {
      if (block.type === 'text') return h('pre', { class: 'text' }, block.text);
      const media = (block.type === 'image' || block.type === 'audio') && /^(image|audio)\/[\w.+-]+$/.test(block.mimeType);
      if (media && block.type === 'image') return h('img', { src: `data:${block.mimeType};base64,${block.data}`, alt: 'An image the tool returned' });
      if (media && block.type === 'audio') return h('audio', { controls: true, src: `data:${block.mimeType};base64,${block.data}` });
      return h('pre', { class: 'json' }, json(block, true));
    }),
    result.structuredContent !== undefined
      ? h('div', { class: 'structured' }, h('p', { class: 'muted' }, 'structuredContent'), h('pre', { class: 'json' }, json(result.structuredContent, true)))
      : undefined,
  );
}

// ---- the server's events -----------------------------------------------------------------------------------

const feedStatus = byId('feed');
const feed = new EventSource('/events');
feed.addEventListener('open', () => {
  feedStatus.dataset.state = 'live';
  feedStatus.textContent = 'Server events: live';
});
feed.addEventListener('error', () => {
  feedStatus.dataset.state = 'connecting';
  feedStatus.textContent = 'Server events: reconnecting';
});
feed.addEventListener('message', (event) => {
  try {
    const record: unknown = JSON.parse(event.data);
    if (isObject(record) && typeof record.event === 'string') logServerEvent(record as unknown as ServerEventRecord);
  } catch {
    note(`The event feed sent something that is not JSON: ${String(event.data).slice(0, 80)}`, 'error');
  }
});

setConnected(false);
note('Console ready: choose a transport and an era, then connect');
