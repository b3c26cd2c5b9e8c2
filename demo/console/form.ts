/**
 * Form fields from JSON Schema, for a tool's inputSchema and an elicitation's requestedSchema: a select
 * for single-select enums (enum, titled oneOf/anyOf, legacy enumNames), checkboxes for multi-select,
 * a checkbox for booleans, email/url/date/datetime-local inputs for the string formats, number inputs
 * with their bounds, text with its lengths. Each field checks itself (the browser's constraint
 * validation, plus what it cannot check) and shows its message next to the control.
 */
import { h, isObject, json, setText, uid } from './dom.js';

export interface Field {
  readonly name: string;
  readonly element: HTMLElement;
  /** What to send, or undefined to leave the field out (neither filled in nor defaulted). */
  value(): unknown;
  /** Check the field and show its message (or clear it); true when it is valid. */
  check(): boolean;
  focus(): void;
}

interface Option {
  value: unknown;
  label: string;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };
const PLACEHOLDERS: Record<string, string> = { email: 'name@example.com', url: 'https://' };

/** The options of a single-select schema (or of a multi-select's `items`), or undefined when it lists none. */
function optionsOf(schema: unknown): Option[] | undefined {
  if (!isObject(schema)) return undefined;
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({ value, label: typeof names[i] === 'string' ? names[i] : String(value) }));
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (!titled?.length || !titled.every((option) => isObject(option) && 'const' in option)) return undefined;
  return titled.map((option: Record<string, unknown>) => ({
    value: option.const,
    label: typeof option.title === 'string' ? option.title : String(option.const),
  }));
}

/** One field per property of an object schema, in its order. */
export function buildFields(schema: unknown): Field[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, property]) => buildField(name, isObject(property) ? property : {}, required.has(name)));
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
function hintOf(property: Record<string, unknown>, kind: string): string {
  const parts: string[] = [];
  if (typeof property.description === 'string') parts.push(property.description);
  else {
    const range = (min: unknown, max: unknown, unit = '') =>
      typeof min === 'number' && typeof max === 'number'
        ? `${min} to ${max}${unit}`
        : typeof min === 'number'
          ? `at least ${min}${unit}`
          : typeof max === 'number'
            ? `at most ${max}${unit}`
            : '';
    parts.push(
      kind === 'number' ? range(property.minimum, property.maximum) : kind === 'text' ? range(property.minLength, property.maxLength, ' characters') : '',
    );
  }
  if (kind === 'datetime-local') parts.push('Your local time.');
  if (kind === 'json') parts.push('JSON.');
  return parts.filter(Boolean).join(' ');
}

function buildField(name: string, property: Record<string, unknown>, required: boolean): Field {
  const id = uid('field');
  const title = typeof property.title === 'string' && property.title ? property.title : name;
  const items = property.type === 'array' ? optionsOf(property.items) : undefined;
  const options = items ? undefined : optionsOf(property);
  const format = typeof property.format === 'string' ? property.format : '';
  const kind = items
    ? 'multi'
    : options
      ? 'select'
      : property.type === 'boolean'
        ? 'boolean'
        : property.type === 'number' || property.type === 'integer'
          ? 'number'
          : property.type === 'string'
            ? (INPUT_TYPES[format] ?? 'text')
            : 'json';
  const hintText = hintOf(property, kind);
  const hint = hintText ? h('small', { id: `${id}-hint`, class: 'hint' }, hintText) : undefined;
  const error = h('p', { id: `${id}-error`, class: 'field-error', hidden: true });
  const describedBy = [hint?.id, error.id].filter(Boolean).join(' ');
  const mark = () =>
    required && h('span', { class: 'req', title: 'required' }, h('span', { 'aria-hidden': 'true' }, ' *'), h('span', { class: 'sr-only' }, ' (required)'));
  const hasDefault = Object.hasOwn(property, 'default');
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
    const picked = Array.isArray(property.default) ? property.default : [];
    const boxes = items!.map((option, i) =>
      h('input', { type: 'checkbox', id: `${id}-${i}`, name, value: String(i), checked: picked.includes(option.value), 'aria-describedby': describedBy }),
    );
    controls = boxes;
    wrapper = h(
      'fieldset',
      { class: 'field group', 'data-field': name, 'data-kind': kind },
      h('legend', {}, title, mark()),
      h('div', { class: 'options' }, ...items!.map((option, i) => h('label', { class: 'check', for: boxes[i].id }, boxes[i], option.label))),
      hint,
      error,
    );
    const chosen = () => boxes.filter((box) => box.checked).map((box) => items![Number(box.value)].value);
    value = () => (touched || hasDefault || required ? chosen() : undefined);
    extraCheck = () => {
      const count = chosen().length;
      const { minItems: min, maxItems: max } = property;
      if (typeof min === 'number' && count < min) return `Pick at least ${min} (${count} picked).`;
      if (typeof max === 'number' && count > max) return `Pick at most ${max} (${count} picked).`;
      return '';
    };
  } else if (kind === 'boolean') {
    const box = h('input', { type: 'checkbox', id, name, checked: property.default === true, 'aria-describedby': describedBy });
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
      const selected = options!.findIndex((option) => option.value === property.default);
      const select = h(
        'select',
        {},
        selected < 0 && h('option', { value: '' }, required ? 'Choose…' : '—'),
        ...options!.map((option, i) => h('option', { value: String(i), selected: i === selected }, option.label)),
      );
      control = select;
      value = () => (select.value === '' ? undefined : options![Number(select.value)].value);
    } else if (kind === 'json') {
      const area = h('textarea', { rows: 2, spellcheck: 'false' });
      // A value, not text to show: it is sent as it is.
      area.value = hasDefault ? json(property.default) : '';
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
      const integer = property.type === 'integer';
      const step = typeof property.multipleOf === 'number' ? property.multipleOf : integer ? 1 : 'any';
      const input = h('input', {
        type: 'number',
        min: typeof property.minimum === 'number' ? property.minimum : undefined,
        max: typeof property.maximum === 'number' ? property.maximum : undefined,
        step,
        inputmode: integer ? 'numeric' : 'decimal',
        value: typeof property.default === 'number' ? property.default : undefined,
      });
      control = input;
      value = () => (input.value === '' ? undefined : Number(input.value));
    } else {
      const input = h('input', {
        type: kind,
        minlength: typeof property.minLength === 'number' ? property.minLength : undefined,
        maxlength: typeof property.maxLength === 'number' ? property.maxLength : undefined,
        pattern: typeof property.pattern === 'string' ? property.pattern : undefined,
        placeholder: PLACEHOLDERS[kind],
        spellcheck: kind === 'text' ? undefined : 'false',
        value: typeof property.default === 'string' ? (kind === 'datetime-local' ? toLocalInput(property.default) : property.default) : undefined,
      });
      control = input;
      value = () => (input.value === '' ? undefined : kind === 'datetime-local' ? toRfc3339(input.value) : input.value);
      // The browser checks lengths only after the user typed; a pre-filled value is checked here.
      extraCheck = () => {
        const length = input.value.length;
        const { minLength: min, maxLength: max } = property;
        if (length > 0 && typeof min === 'number' && length < min) return `Use at least ${min} characters (${length} now).`;
        if (typeof max === 'number' && length > max) return `Use at most ${max} characters (${length} now).`;
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
