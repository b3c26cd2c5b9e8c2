/**
 * An elicitation's `requestedSchema` (client/elicitation.mdx, 2025-11-25: "Requested Schema", SEP-1330's
 * enums) read once into the fields of a form. McpClient's SEP-1034 defaults, the terminal client and the
 * browser console all read a schema here; a tool's `inputSchema` reads the same way. Pure, no I/O.
 */
import { isObject } from '../protocol/jsonrpc.js';

/** One property of a form, as a form shows and checks it. Bounds are present only when the schema gives a finite number. */
export interface FormField {
  /** The property's key. */
  name: string;
  /** The property's `title`, or its name when it has none. */
  title: string;
  /** The property's `description`, when it is not empty. */
  description?: string;
  /**
   * By the property's `type` (of a type list, the first that is not `null`) and its options:
   * - `single-choice`: `enum` (labels from legacy `enumNames`), or titled `oneOf`/`anyOf` of `{const, title}`;
   * - `multi-choice`: `type: 'array'` whose `items` list their options either way (`items.enum`, `items.anyOf`);
   * - `text`, `number`, `integer`, `boolean`: `type` `string`, `number`, `integer`, `boolean`;
   * - `unknown`: anything else, outside the subset (a tool argument of type `object`, an array of free items, no type).
   */
  kind: 'text' | 'number' | 'integer' | 'boolean' | 'single-choice' | 'multi-choice' | 'unknown';
  /** Listed in the schema's `required`. */
  required: boolean;
  /** The property's `default`, only when it fits: a value of the property's type, and one of its choices (each item, for a multi-choice). */
  default?: unknown;
  /** single-choice, multi-choice: the options in order, labelled by `title` or `enumNames`, else by the value as text. */
  choices?: { value: unknown; label: string }[];
  /** text: the `format` (email, uri, date and date-time are the subset's). */
  format?: string;
  /** text: the `pattern`. */
  pattern?: string;
  /** text: lengths, in code points. */
  minLength?: number;
  maxLength?: number;
  /** number, integer. */
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  /** multi-choice: how many may be picked. */
  minItems?: number;
  maxItems?: number;
  /** unknown: the declared `type`, when it has one (`object`, `array`, `null`, or a name JSON Schema does not know). */
  type?: string;
}

type Schema = Record<string, unknown>;

/**
 * The fields of an object schema, one per property in its order. A schema that is no object schema (a
 * `type` other than `object`, or no `properties`) has none; a property that is no object is `unknown`.
 */
export function describeFields(schema: unknown): FormField[] {
  if (!isObject(schema) || (schema.type !== undefined && schema.type !== 'object') || !isObject(schema.properties)) return [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(schema.properties).map(([name, property]) => fieldOf(name, isObject(property) ? property : {}, required.includes(name)));
}

function fieldOf(name: string, property: Schema, required: boolean): FormField {
  const type = typeOf(property);
  const items = type === 'array' ? choicesOf(property.items) : undefined;
  const choices = type === 'array' ? undefined : choicesOf(property);
  const kind = items ? 'multi-choice' : choices ? 'single-choice' : primitiveKind(type);
  const field: FormField = { name, title: nonEmpty(property.title) ?? name, kind, required };
  const description = nonEmpty(property.description);
  if (description !== undefined) field.description = description;
  switch (kind) {
    case 'single-choice':
      field.choices = choices;
      break;
    case 'multi-choice':
      field.choices = items;
      copyNumbers(field, property, ['minItems', 'maxItems']);
      break;
    case 'text':
      if (typeof property.format === 'string') field.format = property.format;
      if (typeof property.pattern === 'string') field.pattern = property.pattern;
      copyNumbers(field, property, ['minLength', 'maxLength']);
      break;
    case 'number':
    case 'integer':
      copyNumbers(field, property, ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);
      break;
    case 'unknown':
      if (type !== undefined) field.type = type;
  }
  if (Object.hasOwn(property, 'default') && defaultFits(field, type, property)) field.default = property.default;
  return field;
}

function primitiveKind(type: string | undefined): FormField['kind'] {
  switch (type) {
    case 'string':
      return 'text';
    case 'number':
    case 'integer':
    case 'boolean':
      return type;
    default:
      return 'unknown';
  }
}

/** The property's type: a string, or the first of a type list that is not `null`. */
function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === 'string' && t !== 'null');
  return undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

type Bound = 'minLength' | 'maxLength' | 'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'multipleOf' | 'minItems' | 'maxItems';

function copyNumbers(field: FormField, property: Schema, keys: readonly Bound[]): void {
  for (const key of keys) {
    const value = property[key];
    if (typeof value === 'number' && Number.isFinite(value)) field[key] = value;
  }
}

/** The options a schema lists: `enum` (with `enumNames`), or the `const`s of a titled `oneOf`/`anyOf` (SEP-1330). */
function choicesOf(schema: unknown): FormField['choices'] {
  if (!isObject(schema)) return undefined;
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => ({ value, label: typeof names[i] === 'string' ? names[i] : String(value) }));
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const consts = titled.filter((option): option is Schema => isObject(option) && Object.hasOwn(option, 'const'));
  if (consts.length === 0) return undefined;
  return consts.map((option) => ({ value: option.const, label: typeof option.title === 'string' ? option.title : String(option.const) }));
}

function defaultFits(field: FormField, type: string | undefined, property: Schema): boolean {
  const value = property.default;
  const isChoice = (item: unknown) => field.choices?.some((choice) => choice.value === item) === true;
  switch (field.kind) {
    case 'single-choice':
      return isOfType(type, value) && isChoice(value);
    case 'multi-choice': {
      const itemType = isObject(property.items) ? typeOf(property.items) : undefined;
      return Array.isArray(value) && value.every((item) => isOfType(itemType, item) && isChoice(item));
    }
    default:
      return value !== undefined && isOfType(type, value);
  }
}

/** Whether `value` is of the JSON Schema type `type` (any value, when there is none; no value, for a name JSON Schema does not have). */
function isOfType(type: string | undefined, value: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return false;
  }
}
