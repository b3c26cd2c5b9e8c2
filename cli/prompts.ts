/**
 * The pure half of the terminal client: how one form field (of an elicitation's `requestedSchema`, or a
 * tool argument of its `inputSchema`, both read by `describeFields`) is shown, and what a line the user
 * typed for it means. No I/O here: `fieldText` returns the text to show, `readAnswer` turns (field, line)
 * into a value, a skip, an action (`!decline`, `!cancel`) or the reason to ask again.
 *
 * Answers, by the field's kind:
 * - single-choice: by number (1..n) or by the value (or label) itself. Numbers come first, so for an
 *   enum of numeric strings `2` means the second option.
 * - multi-choice: comma-separated numbers (or values), `minItems`/`maxItems` checked, repeats dropped.
 * - boolean: y/yes/true/1 or n/no/false/0.
 * - integer, number: decimal numbers; `minimum`/`maximum` (and the exclusive forms) checked.
 * - text: as typed (not trimmed); `minLength`/`maxLength` (in code points) checked, and the formats
 *   email, uri, date and date-time checked loosely (the client validates the whole form again).
 * - unknown (an object, an array of other items, no type): JSON text, or the text itself when it is not
 *   JSON and the field's type is no object or array.
 *
 * An empty answer takes the field's default (`describeFields` keeps only one that fits), is skipped when
 * the field is optional, and is asked again when it is required.
 */
import { describeFields, type FormField } from '../src/index.js';
import type { ClientEra } from '../src/index.js';

/** What one answer line means. */
export type Answer =
  | { kind: 'value'; value: unknown }
  | { kind: 'skip' }
  | { kind: 'action'; action: 'decline' | 'cancel' }
  | { kind: 'error'; message: string };

type Choice = NonNullable<FormField['choices']>[number];

/** The field of one property schema alone, as `describeFields` reads it in a form. */
function fieldFor(name: string, schema: unknown, required: boolean): FormField {
  return describeFields({ type: 'object', properties: { [name]: schema }, required: required ? [name] : [] })[0];
}

/** How a value is shown back: a choice by its label, a boolean as y/n, a list comma-separated. */
export function showValue(field: FormField, value: unknown): string {
  const label = (item: unknown) => field.choices?.find((choice) => choice.value === item)?.label ?? String(item);
  if (field.kind === 'boolean') return value ? 'y' : 'n';
  if (field.kind === 'single-choice') return label(value);
  if (field.kind === 'multi-choice' && Array.isArray(value)) return value.map(label).join(', ');
  if (field.kind === 'text' && value === '') return '""';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** What is shown for one field: a heading line, the numbered options, and the prompt itself. */
export interface FieldText {
  /** `Title * — description`. */
  heading: string;
  /** `1) Label` lines, for choice fields. */
  options: string[];
  /** `(hint) [default]: `, the line the answer is typed on. */
  prompt: string;
}

/** How one field is asked. */
export function fieldText(field: FormField): FieldText {
  const description = field.description === undefined ? '' : ` — ${field.description}`;
  const options = (field.choices ?? []).map((choice, i) => `  ${i + 1}) ${choice.label}`);
  const defaults = field.default === undefined ? '' : ` [${showValue(field, field.default)}]`;
  return { heading: `${field.title}${field.required ? ' *' : ''}${description}`, options, prompt: `(${hintOf(field)})${defaults}: ` };
}

/** How the property `schema` alone is asked: `name` is its key, shown when it has no `title`. */
export function describeField(name: string, schema: unknown, required: boolean): FieldText {
  return fieldText(fieldFor(name, schema, required));
}

function hintOf(field: FormField): string {
  const optional = field.required || field.default !== undefined ? '' : ', empty skips';
  const n = field.choices?.length ?? 0;
  switch (field.kind) {
    case 'single-choice':
      return `choose 1-${n}${optional}`;
    case 'multi-choice':
      return `choose from 1-${n}, comma-separated${bounds(field.minItems, field.maxItems, 'items')}${optional}`;
    case 'boolean':
      return `y/n${optional}`;
    case 'integer':
    case 'number':
      return `${field.kind}${numberBounds(field)}${optional}`;
    case 'text': {
      const format = field.format === undefined ? 'text' : Object.hasOwn(FORMAT_HINTS, field.format) ? FORMAT_HINTS[field.format] : field.format;
      return `${format}${bounds(field.minLength, field.maxLength, 'characters')}${optional}`;
    }
    default:
      return `JSON${field.type === undefined ? '' : ` ${field.type}`}${optional}`;
  }
}

const FORMAT_HINTS: Record<string, string> = {
  email: 'email, e.g. name@example.com',
  uri: 'uri, e.g. https://example.com',
  date: 'date, YYYY-MM-DD',
  'date-time': 'date-time, YYYY-MM-DDThh:mm:ssZ',
};

function numberBounds(field: FormField): string {
  const { minimum: min, maximum: max } = field;
  const parts: string[] = [];
  if (min !== undefined && max !== undefined) parts.push(`${min} to ${max}`);
  else if (min !== undefined) parts.push(`at least ${min}`);
  else if (max !== undefined) parts.push(`at most ${max}`);
  if (field.exclusiveMinimum !== undefined) parts.push(`above ${field.exclusiveMinimum}`);
  if (field.exclusiveMaximum !== undefined) parts.push(`below ${field.exclusiveMaximum}`);
  return parts.length > 0 ? `, ${parts.join(', ')}` : '';
}

function bounds(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return `, ${min}-${max} ${unit}`;
  if (min !== undefined) return `, at least ${min} ${unit}`;
  if (max !== undefined) return `, at most ${max} ${unit}`;
  return '';
}

/**
 * What `line`, typed for `field`, means: the value to send, a skip (an empty answer to an optional field
 * without a default), an action (`!decline` or `!cancel`, at any field), or the reason it cannot be
 * taken, to show before asking again.
 */
export function readAnswer(field: FormField, line: string): Answer {
  const command = line.trim().toLowerCase();
  if (command === '!decline' || command === '!cancel') return { kind: 'action', action: command === '!decline' ? 'decline' : 'cancel' };
  // A string may be blank on purpose; every other kind ignores surrounding blanks.
  const text = field.kind === 'text' ? line : line.trim();
  if (text === '') {
    if (field.default !== undefined) return { kind: 'value', value: field.default };
    if (!field.required) return { kind: 'skip' };
    return { kind: 'error', message: 'an answer is required (or type !decline or !cancel)' };
  }
  switch (field.kind) {
    case 'single-choice':
      return parseChoice(field.choices ?? [], text);
    case 'multi-choice':
      return parseMulti(field, text);
    case 'boolean':
      return parseBoolean(text);
    case 'integer':
    case 'number':
      return parseNumber(field, text);
    case 'text':
      return parseString(field, text);
    default:
      return parseJson(field.type, text);
  }
}

/** What `line` means for the property `schema` alone (see `readAnswer`). */
export function parseAnswer(schema: unknown, line: string, options: { required?: boolean } = {}): Answer {
  return readAnswer(fieldFor('', schema, options.required === true), line);
}

/** A choice by its number, its value or its label (case-insensitive). */
function pick(choices: Choice[], text: string): Choice | undefined {
  if (/^\d+$/.test(text)) {
    const index = Number(text);
    if (index >= 1 && index <= choices.length) return choices[index - 1];
  }
  const lower = text.toLowerCase();
  return (
    choices.find((choice) => String(choice.value) === text) ??
    choices.find((choice) => String(choice.value).toLowerCase() === lower || choice.label.toLowerCase() === lower)
  );
}

function parseChoice(choices: Choice[], text: string): Answer {
  const choice = pick(choices, text);
  return choice ? { kind: 'value', value: choice.value } : { kind: 'error', message: `choose a number from 1 to ${choices.length}` };
}

function parseMulti(field: FormField, text: string): Answer {
  const choices = field.choices ?? [];
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const values: unknown[] = [];
  for (const part of parts) {
    const choice = pick(choices, part);
    if (!choice) return { kind: 'error', message: `${JSON.stringify(part)} is not an option: use numbers from 1 to ${choices.length}, separated by commas` };
    if (!values.includes(choice.value)) values.push(choice.value);
  }
  const { minItems: min, maxItems: max } = field;
  if (min !== undefined && values.length < min) return { kind: 'error', message: `choose at least ${min}` };
  if (max !== undefined && values.length > max) return { kind: 'error', message: `choose at most ${max}` };
  return { kind: 'value', value: values };
}

function parseBoolean(text: string): Answer {
  const lower = text.toLowerCase();
  if (['y', 'yes', 'true', '1'].includes(lower)) return { kind: 'value', value: true };
  if (['n', 'no', 'false', '0'].includes(lower)) return { kind: 'value', value: false };
  return { kind: 'error', message: 'answer y or n' };
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function parseNumber(field: FormField, text: string): Answer {
  const integer = field.kind === 'integer';
  if (!DECIMAL.test(text)) return { kind: 'error', message: integer ? 'not a whole number' : 'not a number' };
  const value = Number(text);
  if (!Number.isFinite(value)) return { kind: 'error', message: 'not a finite number' };
  if (integer && !Number.isInteger(value)) return { kind: 'error', message: 'not a whole number' };
  const { minimum: min, maximum: max, exclusiveMinimum: exclusiveMin, exclusiveMaximum: exclusiveMax } = field;
  if (min !== undefined && value < min) return { kind: 'error', message: `must be at least ${min}` };
  if (max !== undefined && value > max) return { kind: 'error', message: `must be at most ${max}` };
  if (exclusiveMin !== undefined && value <= exclusiveMin) return { kind: 'error', message: `must be above ${exclusiveMin}` };
  if (exclusiveMax !== undefined && value >= exclusiveMax) return { kind: 'error', message: `must be below ${exclusiveMax}` };
  return { kind: 'value', value };
}

function parseString(field: FormField, text: string): Answer {
  const length = [...text].length;
  const { minLength: min, maxLength: max } = field;
  if (min !== undefined && length < min) return { kind: 'error', message: `too short: at least ${min} characters (got ${length})` };
  if (max !== undefined && length > max) return { kind: 'error', message: `too long: at most ${max} characters (got ${length})` };
  const problem = field.format === undefined ? undefined : formatProblem(field.format, text);
  if (problem) return { kind: 'error', message: problem };
  return { kind: 'value', value: text };
}

/** Loose checks of the formats the elicitation subset names; others are not checked here. */
export function formatProblem(format: string, text: string): string | undefined {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(text) ? undefined : 'not an email address (name@example.com)';
    case 'uri':
      return /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/.test(text) && URL.canParse(text) ? undefined : 'not an absolute URI (https://example.com/...)';
    case 'date':
      return validDate(text) ? undefined : 'not a date (YYYY-MM-DD)';
    case 'date-time': {
      const match = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/.exec(text);
      const ok = match !== null && validDate(match[1]) && Number(match[2]) < 24 && Number(match[3]) < 60 && Number(match[4]) < 61;
      return ok ? undefined : 'not a date-time (YYYY-MM-DDThh:mm:ssZ, or with an offset such as +02:00)';
    }
    default:
      return undefined;
  }
}

function validDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

function parseJson(type: string | undefined, text: string): Answer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: the text itself, unless the field wants a structure.
    if (type === 'object' || type === 'array') return { kind: 'error', message: `not JSON: type a JSON ${type}` };
    return { kind: 'value', value: text };
  }
  if (type !== undefined && !jsonFits(type, value)) return { kind: 'error', message: `not a JSON ${type}` };
  return { kind: 'value', value };
}

/** Whether a JSON answer is of the field's type: only the structures and null are checked; other types' names pass. */
function jsonFits(type: string, value: unknown): boolean {
  if (type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'null') return value === null;
  return true;
}

/** The `[a/d/c]` answer before a form: accept, decline or cancel, or undefined to ask again. */
export function parseAction(line: string): 'accept' | 'decline' | 'cancel' | undefined {
  const lower = line.trim().toLowerCase().replace(/^!/, '');
  if (lower === 'a' || lower === 'accept') return 'accept';
  if (lower === 'd' || lower === 'decline') return 'decline';
  if (lower === 'c' || lower === 'cancel') return 'cancel';
  return undefined;
}

/** `Open this URL? [y/N]`: only yes opens (accepts); anything else declines. */
export function parseYesNo(line: string): boolean {
  return ['y', 'yes'].includes(line.trim().toLowerCase());
}

/** The URL's host, to show next to it (the part a person should check). */
export function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : '(not a valid URL)';
}

/** The URL as a browser reads it (`new URL(url).href`: controls and spaces percent-encoded, the host in punycode). */
export function hrefOf(url: string): string {
  return URL.canParse(url) ? new URL(url).href : '(not a valid URL)';
}

export const USAGE = 'usage: npm run client -- <url> [--era auto|legacy|modern]';

/** The command line (after the script): the server's URL and the era, or the one line to exit with. */
export function parseCommandLine(args: readonly string[]): { url: string; era: ClientEra } | { error: string } {
  let url: string | undefined;
  let era: string = 'auto';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--era' || arg.startsWith('--era=')) {
      const value = arg === '--era' ? args[++i] : arg.slice('--era='.length);
      if (value === undefined) return { error: `error: --era needs a value; ${USAGE}` };
      era = value;
    } else if (arg === '-h' || arg === '--help') return { error: USAGE };
    else if (arg.startsWith('-')) return { error: `error: unknown option ${arg}; ${USAGE}` };
    else if (url === undefined) url = arg;
    else return { error: `error: one URL only (got ${JSON.stringify(url)} and ${JSON.stringify(arg)}); ${USAGE}` };
  }
  if (url === undefined) return { error: USAGE };
  if (era !== 'auto' && era !== 'legacy' && era !== 'modern')
    return { error: `error: --era must be auto, legacy or modern, not ${JSON.stringify(era)}; ${USAGE}` };
  const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:' && protocol !== 'ws:' && protocol !== 'wss:') {
    return { error: `error: not an http(s):// or ws(s):// URL: ${JSON.stringify(url)}; ${USAGE}` };
  }
  return { url, era };
}
