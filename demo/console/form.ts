/**
 * Form controls for the fields `describeFields` reads from a tool's inputSchema or an elicitation's
 * requestedSchema: a select for a single choice, checkboxes for a multi choice, a checkbox for a boolean,
 * email/url/date/datetime-local inputs for the string formats, number inputs with their bounds, text with
 * its lengths, JSON for the rest. Each field checks itself (the browser's constraint validation, plus
 * what it cannot check) and shows its message next to the control.
 */
import { describeFields, type FormField } from '../../src/browser.js';
import { h, json, setText, uid } from './dom.js';

export interface Field {
  readonly name: string;
  readonly element: HTMLElement;
  /** What to send, or undefined to leave the field out (neither filled in nor defaulted). */
  value(): unknown;
  /** Check the field and show its message (or clear it); true when it is valid. */
  check(): boolean;
  focus(): void;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };
const PLACEHOLDERS: Record<string, string> = { email: 'name@example.com', url: 'https://' };

/** One control per field of an object schema, in its order. */
export function buildFields(schema: unknown): Field[] {
  return describeFields(schema).map(buildField);
}

/** Check every field; when all are valid, the values to send (fields left empty are left out). Otherwise focus the first invalid one. */
export function collect(fields: Field[]): Record<string, unknown> | undefined {
  const invalid = fields.filter((field) => !field.check());
  if (invalid.length > 0) {
    invalid[0].focus();
    return undefined;
  }
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const value = field.value();
    if (value !== undefined) values[field.name] = value;
  }
  return values;
}

/** The hint under a field: its description, or what it accepts. */
function hintOf(field: FormField, kind: string): string {
  const parts: string[] = [];
  if (field.description !== undefined) parts.push(field.description);
  else {
    const range = (min: number | undefined, max: number | undefined, unit = '') =>
      min !== undefined && max !== undefined
        ? `${min} to ${max}${unit}`
        : min !== undefined
          ? `at least ${min}${unit}`
          : max !== undefined
            ? `at most ${max}${unit}`
            : '';
    parts.push(kind === 'number' ? range(field.minimum, field.maximum) : kind === 'text' ? range(field.minLength, field.maxLength, ' characters') : '');
  }
  if (kind === 'datetime-local') parts.push('Your local time.');
  if (kind === 'json') parts.push('JSON.');
  return parts.filter(Boolean).join(' ');
}

/** The control a field gets, as its `data-kind` names it. */
function controlKind(field: FormField): string {
  switch (field.kind) {
    case 'multi-choice':
      return 'multi';
    case 'single-choice':
      return 'select';
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'integer':
      return 'number';
    case 'text':
      return field.format !== undefined && Object.hasOwn(INPUT_TYPES, field.format) ? INPUT_TYPES[field.format] : 'text';
    default:
      return 'json';
  }
}

function buildField(field: FormField): Field {
  const { name, title, required } = field;
  const id = uid('field');
  const choices = field.choices ?? [];
  const kind = controlKind(field);
  const hintText = hintOf(field, kind);
  const hint = hintText ? h('small', { id: `${id}-hint`, class: 'hint' }, hintText) : undefined;
  const error = h('p', { id: `${id}-error`, class: 'field-error', hidden: true });
  const describedBy = [hint?.id, error.id].filter(Boolean).join(' ');
  const mark = () =>
    required && h('span', { class: 'req', title: 'required' }, h('span', { 'aria-hidden': 'true' }, ' *'), h('span', { class: 'sr-only' }, ' (required)'));
  const hasDefault = field.default !== undefined;
  let touched = false;
  let controls: Control[] = [];
  let extraCheck: () => string = () => '';

  const show = (message: string) => {
    setText(error, message);
    error.hidden = !message;
    wrapper.classList.toggle('invalid', Boolean(message));
    for (const control of controls) {
      if (message) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    }
  };
  const common = (control: Control) => {
    control.id = id;
    control.name = name;
    control.setAttribute('aria-describedby', describedBy);
    if (required) {
      control.required = true;
      control.setAttribute('aria-required', 'true');
    }
    return control;
  };

  let wrapper: HTMLElement;
  let value: () => unknown;

  if (kind === 'multi') {
    const picked = Array.isArray(field.default) ? field.default : [];
    const boxes = choices.map((option, i) =>
      h('input', { type: 'checkbox', id: `${id}-${i}`, name, value: String(i), checked: picked.includes(option.value), 'aria-describedby': describedBy }),
    );
    controls = boxes;
    wrapper = h(
      'fieldset',
      { class: 'field group', 'data-field': name, 'data-kind': kind },
      h('legend', {}, title, mark()),
      h('div', { class: 'options' }, ...choices.map((option, i) => h('label', { class: 'check', for: boxes[i].id }, boxes[i], option.label))),
      hint,
      error,
    );
    const chosen = () => boxes.filter((box) => box.checked).map((box) => choices[Number(box.value)].value);
    value = () => (touched || hasDefault || required ? chosen() : undefined);
    extraCheck = () => {
      const count = chosen().length;
      const { minItems: min, maxItems: max } = field;
      if (min !== undefined && count < min) return `Pick at least ${min} (${count} picked).`;
      if (max !== undefined && count > max) return `Pick at most ${max} (${count} picked).`;
      return '';
    };
  } else if (kind === 'boolean') {
    const box = h('input', { type: 'checkbox', id, name, checked: field.default === true, 'aria-describedby': describedBy });
    controls = [box];
    wrapper = h(
      'div',
      { class: 'field check-field', 'data-field': name, 'data-kind': kind },
      h('label', { class: 'check', for: id }, box, title, mark()),
      hint,
      error,
    );
    value = () => (touched || hasDefault || required ? box.checked : undefined);
  } else {
    let control: Control;
    if (kind === 'select') {
      const selected = hasDefault ? choices.findIndex((option) => option.value === field.default) : -1;
      const select = h(
        'select',
        {},
        selected < 0 && h('option', { value: '' }, required ? 'Choose…' : '—'),
        ...choices.map((option, i) => h('option', { value: String(i), selected: i === selected }, option.label)),
      );
      control = select;
      value = () => (select.value === '' ? undefined : choices[Number(select.value)].value);
    } else if (kind === 'json') {
      const area = h('textarea', { rows: 2, spellcheck: 'false' });
      // A value, not text to show: it is sent as it is.
      area.value = hasDefault ? json(field.default) : '';
      control = area;
      value = () => (area.value.trim() === '' ? undefined : JSON.parse(area.value));
      extraCheck = () => {
        try {
          value();
          return '';
        } catch {
          return 'Enter valid JSON.';
        }
      };
    } else if (kind === 'number') {
      const integer = field.kind === 'integer';
      const input = h('input', {
        type: 'number',
        min: field.minimum,
        max: field.maximum,
        step: field.multipleOf ?? (integer ? 1 : 'any'),
        inputmode: integer ? 'numeric' : 'decimal',
        value: typeof field.default === 'number' ? field.default : undefined,
      });
      control = input;
      value = () => (input.value === '' ? undefined : Number(input.value));
    } else {
      const input = h('input', {
        type: kind,
        minlength: field.minLength,
        maxlength: field.maxLength,
        pattern: field.pattern,
        placeholder: PLACEHOLDERS[kind],
        spellcheck: kind === 'text' ? undefined : 'false',
        value: typeof field.default === 'string' ? (kind === 'datetime-local' ? toLocalInput(field.default) : field.default) : undefined,
      });
      control = input;
      value = () => (input.value === '' ? undefined : kind === 'datetime-local' ? toRfc3339(input.value) : input.value);
      // The browser checks lengths only after the user typed; a pre-filled value is checked here.
      extraCheck = () => {
        const length = input.value.length;
        const { minLength: min, maxLength: max } = field;
        if (length > 0 && min !== undefined && length < min) return `Use at least ${min} characters (${length} now).`;
        if (max !== undefined && length > max) return `Use at most ${max} characters (${length} now).`;
        return '';
      };
    }
    controls = [common(control)];
    wrapper = h('div', { class: 'field', 'data-field': name, 'data-kind': kind }, h('label', { for: id }, title, mark()), control, hint, error);
  }

  const check = () => {
    const broken = controls.find((control) => !control.validity.valid);
    const message = broken ? broken.validationMessage : extraCheck();
    show(message);
    return !message;
  };
  // Once a field shows a message, it is checked again as the user fixes it.
  const changed = () => {
    touched = true;
    if (wrapper.classList.contains('invalid')) check();
  };
  wrapper.addEventListener('input', changed);
  wrapper.addEventListener('change', changed);
  return { name, element: wrapper, value, check, focus: () => controls[0]?.focus() };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A datetime-local value (local time) as an RFC 3339 date-time with seconds and the local offset. */
export function toRfc3339(local: string): string {
  const withSeconds = local.length === 16 ? `${local}:00` : local;
  const offset = -new Date(withSeconds).getTimezoneOffset();
  if (!Number.isFinite(offset) || offset === 0) return `${withSeconds}Z`;
  const abs = Math.abs(offset);
  return `${withSeconds}${offset > 0 ? '+' : '-'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** An RFC 3339 date-time as a datetime-local value, in local time ('' when it does not parse). */
function toLocalInput(dateTime: string): string {
  const date = new Date(dateTime);
  if (Number.isNaN(date.getTime())) return '';
  const seconds = date.getSeconds() ? `:${pad(date.getSeconds())}` : '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}${seconds}`;
}
