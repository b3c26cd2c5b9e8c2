/**
 * What the server asks the user, one question at a time in a <dialog>: an elicitation form built from its
 * requestedSchema, a URL to open (after asking), or a sampling request to answer as the model.
 */
import type { CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ElicitValue, HandlerContext } from '../../src/browser.js';
import { McpError } from '../../src/browser.js';
import { isLoopbackHostname } from '../../src/protocol/elicitation-url.js';
import { byId, h, isObject, json, setText, uid } from './dom.js';
import { buildFields, collect } from './form.js';
import { note } from './log.js';

const dialog = byId<HTMLDialogElement>('ask');
let queue: Promise<unknown> = Promise.resolve();
/** Told when the server reports a URL-mode elicitation complete (notifications/elicitation/complete). */
let onComplete: ((elicitationId: string) => void) | undefined;

export function elicitationCompleted(elicitationId: string): void {
  onComplete?.(elicitationId);
}

/**
 * Show one question once the ones before it are answered. `render` builds the dialog's content and calls
 * `finish` with the answer (a function, so that it may throw). Esc, or the server withdrawing the question
 * (`signal`), answers `dismissed`.
 */
function ask<T>(signal: AbortSignal, dismissed: () => T, render: (finish: (answer: () => T) => void) => HTMLElement): Promise<T> {
  const run = queue.then(
    () =>
      new Promise<T>((resolve, reject) => {
        let settled = false;
        const finish = (answer: () => T) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', withdrawn);
          dialog.removeEventListener('cancel', onEscape);
          onComplete = undefined;
          dialog.close();
          dialog.replaceChildren();
          try {
            resolve(answer());
          } catch (err) {
            reject(err);
          }
        };
        const withdrawn = () => {
          note('The server withdrew its question', 'info');
          finish(dismissed);
        };
        const onEscape = (event: Event) => {
          event.preventDefault();
          finish(dismissed);
        };
        if (signal.aborted) return finish(dismissed);
        signal.addEventListener('abort', withdrawn, { once: true });
        dialog.addEventListener('cancel', onEscape);
        dialog.replaceChildren(render(finish));
        dialog.toggleAttribute('aria-describedby', false);
        if (dialog.querySelector('#ask-message')) dialog.setAttribute('aria-describedby', 'ask-message');
        dialog.showModal();
        dialog.querySelector<HTMLElement>('input, select, textarea, [data-autofocus]')?.focus();
      }),
  );
  queue = run.catch(() => {});
  return run;
}

/** Where the question came from: a request the server pushed, or an input round. */
function origin(kind: string, ctx: HandlerContext): string {
  if (ctx.taskId !== undefined) return `${kind} · input ${ctx.inputKey} (task ${ctx.taskId.slice(0, 8)})`;
  return `${kind} · ${ctx.era === 'modern' ? `input ${ctx.inputKey} (2026-07-28 round)` : `request #${json(ctx.requestId)}`}`;
}

function head(eyebrow: string, title: string, message: string): HTMLElement {
  return h(
    'header',
    { class: 'ask-head' },
    h('p', { class: 'eyebrow' }, eyebrow),
    h('h2', { id: 'ask-title' }, title),
    message ? h('p', { id: 'ask-message', class: 'message' }, message) : undefined,
  );
}

function button(label: string, action: string, attrs: Record<string, string | boolean> = {}): HTMLButtonElement {
  return h('button', { type: 'button', 'data-action': action, ...attrs }, label);
}

export function askElicitation(server: string, params: ElicitParams, ctx: HandlerContext): Promise<ElicitResult> {
  const cancel = (): ElicitResult => ({ action: 'cancel' });
  return ask(ctx.signal, cancel, (finish) => {
    const decline = button('Decline', 'decline');
    const dismiss = button('Cancel', 'cancel');
    decline.addEventListener('click', () => finish(() => ({ action: 'decline' })));
    dismiss.addEventListener('click', () => finish(cancel));
    if (params.mode === 'url') return urlForm(server, params.url, params.message, params.elicitationId, ctx, finish, [dismiss, decline]);

    const fields = buildFields(params.requestedSchema);
    const problem = h('p', { class: 'form-problem', role: 'alert', hidden: true });
    const form = h(
      'form',
      { class: 'ask-form', novalidate: true, 'data-mode': 'form' },
      head(origin('Elicitation · form', ctx), `${server} asks`, params.message),
      h(
        'div',
        { class: 'ask-body' },
        fields.some((field) => field.element.querySelector('.req')) &&
          h('p', { class: 'hint' }, 'Fields marked ', h('span', { class: 'req' }, '*'), ' are required.'),
        h('div', { class: 'fields' }, ...fields.map((field) => field.element)),
        problem,
      ),
      h('footer', { class: 'ask-actions' }, dismiss, decline, h('button', { type: 'submit', class: 'primary', 'data-action': 'accept' }, 'Accept')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const content = collect(fields);
      const invalid = fields.filter((field) => field.element.classList.contains('invalid')).length;
      problem.hidden = content !== undefined;
      problem.textContent = content ? '' : `Check ${invalid === 1 ? 'the field' : `the ${invalid} fields`} marked above; nothing was sent.`;
      if (content) finish(() => ({ action: 'accept', content: content as Record<string, ElicitValue> }));
    });
    return form;
  });
}

function urlForm(
  server: string,
  url: string,
  message: string,
  elicitationId: string | undefined,
  ctx: HandlerContext,
  finish: (answer: () => ElicitResult) => void,
  refuse: HTMLButtonElement[],
): HTMLElement {
  // What the browser opens: `href` has controls and spaces percent-encoded, and the host in punycode.
  const { host, hostname, href, protocol } = new URL(url);
  const status = h('p', { class: 'url-status', role: 'status' });
  const open = h('button', { type: 'button', class: 'open', 'data-action': 'open', 'data-autofocus': true }, `Open ${host}…`);
  const accept = h('button', { type: 'submit', class: 'primary', 'data-action': 'accept' }, 'I opened it (accept)');
  const confirmId = uid('confirm');
  const yes = h('button', { type: 'button', class: 'primary', 'data-action': 'confirm-open' }, 'Open');
  const no = h('button', { type: 'button', 'data-action': 'not-now' }, 'Not now');
  const confirm = h(
    'div',
    { class: 'confirm-open', role: 'group', 'aria-labelledby': confirmId, hidden: true },
    h('p', { id: confirmId }, `Open ${host}?`),
    h('p', { class: 'muted' }, 'It opens in a new tab, without access to this page.'),
    h('div', { class: 'row-buttons' }, yes, no),
  );
  open.addEventListener('click', () => {
    confirm.hidden = false;
    open.hidden = true;
    yes.focus();
  });
  no.addEventListener('click', () => {
    confirm.hidden = true;
    open.hidden = false;
    open.focus();
  });
  yes.addEventListener('click', () => {
    window.open(url, '_blank', 'noopener,noreferrer');
    confirm.hidden = true;
    open.hidden = false;
    setText(open, `Open ${host} again…`);
    setText(status, `Opened ${host} in a new tab. When you are done there, press "I opened it".`);
    accept.focus();
  });
  onComplete = (id) => {
    if (id === elicitationId) setText(status, `${server} says the step on ${host} is complete.`);
  };
  const form = h(
    'form',
    { class: 'ask-form', 'data-mode': 'url' },
    head(origin('Elicitation · URL', ctx), `${server} asks you to open a page`, message),
    h(
      'div',
      { class: 'ask-body' },
      h(
        'div',
        { class: 'url-box' },
        h('p', { class: 'muted' }, 'The page is on'),
        h('p', { class: 'host', 'data-host': host }, host),
        h('p', { class: 'url' }, h('code', {}, href)),
        // McpClient refuses plain http to another host; should one come, it is not shown as fine.
        protocol === 'http:' && !isLoopbackHostname(hostname) ? h('p', { class: 'warn' }, 'Not encrypted (http).') : undefined,
      ),
      h('p', { class: 'muted' }, 'Open it only if you trust this server. Then tell the server whether you did.'),
      open,
      confirm,
      status,
    ),
    h('footer', { class: 'ask-actions' }, ...refuse, accept),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    finish(() => ({ action: 'accept' }));
  });
  return form;
}

/** Text a reply can be made of, when the user would rather not type one. */
function sampleText(prompt: string): string {
  if (/itinerary/i.test(prompt)) {
    return 'Day 1: arrive, walk the old town, dinner by the river.\nDay 2: a museum in the morning, a market lunch, a sunset viewpoint.\nDay 3: a slow breakfast, then home.';
  }
  return 'A short reminder about an everyday errand.';
}

function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((block) => (isObject(block) && block.type === 'text' ? String(block.text) : `[${isObject(block) ? block.type : 'content'}]`)).join('\n');
}

export function askSampling(server: string, params: CreateMessageParams, ctx: HandlerContext): Promise<CreateMessageResult> {
  const rejected = (): CreateMessageResult => {
    throw new McpError(-1, 'User rejected sampling request');
  };
  return ask(ctx.signal, rejected, (finish) => {
    const id = uid('reply');
    const reply = h('textarea', { id, rows: 5, required: true, 'aria-required': 'true', 'aria-describedby': `${id}-error` });
    const error = h('p', { id: `${id}-error`, class: 'field-error', hidden: true });
    const prompt = params.messages.map((message) => textOf(message.content)).join('\n');
    const answer = (text: string) =>
      finish(() => ({ role: 'assistant', content: { type: 'text', text }, model: 'switchboard-console (a person)', stopReason: 'endTurn' }));
    const decline = button('Decline', 'decline');
    const sample = button('Reply with sample text', 'sample');
    decline.addEventListener('click', () => finish(rejected));
    sample.addEventListener('click', () => answer(sampleText(prompt)));
    const form = h(
      'form',
      { class: 'ask-form', novalidate: true, 'data-mode': 'sampling' },
      head(origin('Sampling', ctx), `${server} asks your model`, ''),
      h(
        'div',
        { class: 'ask-body' },
        params.systemPrompt ? h('p', { class: 'muted' }, `System prompt: ${params.systemPrompt}`) : undefined,
        h(
          'ol',
          { class: 'messages' },
          ...params.messages.map((message) =>
            h('li', { 'data-role': message.role }, h('span', { class: 'role' }, message.role), h('p', {}, textOf(message.content))),
          ),
        ),
        h('p', { class: 'muted' }, `Up to ${params.maxTokens} tokens.`),
        h(
          'div',
          { class: 'field' },
          h('label', { for: id }, 'Your reply, as the model', h('span', { class: 'req', 'aria-hidden': 'true' }, ' *')),
          reply,
          error,
        ),
      ),
      h('footer', { class: 'ask-actions' }, decline, sample, h('button', { type: 'submit', class: 'primary', 'data-action': 'send' }, 'Send reply')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = reply.value.trim();
      error.hidden = Boolean(text);
      error.textContent = text ? '' : 'Type a reply, or use the sample text.';
      if (text) answer(text);
      else reply.focus();
    });
    return form;
  });
}
