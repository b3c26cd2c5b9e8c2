/**
 * The restricted JSON Schema subset form-mode elicitation allows (client/elicitation.mdx,
 * SEP-1330 enums, SEP-1034 defaults). A schema outside it is a programmer error: it throws at once,
 * naming the property at fault, before anything is sent.
 */
import type { SchemaCompiler } from '../schema/compiler.js';
import { describeViolations } from '../schema/compiler.js';
import { isObject } from '../protocol/jsonrpc.js';

const STRING_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const ANNOTATIONS = ['title', 'description', 'default'];
const ALLOWED_KEYS: Record<string, ReadonlySet<string>> = {
  string: new Set([...ANNOTATIONS, 'type', 'minLength', 'maxLength', 'format', 'pattern', 'enum', 'enumNames', 'oneOf']),
  number: new Set([...ANNOTATIONS, 'type', 'minimum', 'maximum']),
  integer: new Set([...ANNOTATIONS, 'type', 'minimum', 'maximum']),
  boolean: new Set([...ANNOTATIONS, 'type']),
  array: new Set([...ANNOTATIONS, 'type', 'minItems', 'maxItems', 'items']),
};
const TOP_LEVEL_KEYS = new Set(['$schema', 'type', 'properties', 'required', 'title', 'description']);

type Obj = Record<string, unknown>;

function fail(where: string, problem: string): never {
  throw new TypeError(`requestedSchema${where}: ${problem}. Elicitation forms take a flat object of string, number, integer, boolean and enum properties`);
}

function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** `[{const, title}]`, the titled enum options of SEP-1330. */
function checkTitledOptions(where: string, key: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) fail(where, `${key} must be a non-empty array of {const, title}`);
  return value.map((option, i) => {
    if (!isObject(option) || typeof option.const !== 'string' || typeof option.title !== 'string') {
      fail(where, `${key}[${i}] must be {const: string, title: string}`);
    }
    return option.const as string;
  });
}

function checkNumber(where: string, property: Obj, key: string, integer = false): void {
  const value = property[key];
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || (integer && value < 0))) {
    fail(where, `${key} must be a ${integer ? 'non-negative integer' : 'finite number'}`);
  }
}

function checkProperty(name: string, property: unknown, schemas: SchemaCompiler): void {
  const where = `.properties.${name}`;
  if (!isObject(property)) fail(where, 'must be an object');
  const type = property.type;
  if (typeof type !== 'string' || !Object.hasOwn(ALLOWED_KEYS, type)) {
    fail(where, `type must be one of string, number, integer, boolean, array (got ${JSON.stringify(type)})`);
  }
  for (const key of Object.keys(property)) {
    if (!ALLOWED_KEYS[type].has(key)) fail(where, `'${key}' is not allowed on a ${type} property`);
  }
  for (const key of ['title', 'description']) {
    if (property[key] !== undefined && typeof property[key] !== 'string') fail(where, `${key} must be a string`);
  }
  if (type === 'string') {
    checkNumber(where, property, 'minLength', true);
    checkNumber(where, property, 'maxLength', true);
    if (property.format !== undefined && !STRING_FORMATS.has(property.format as string)) {
      fail(where, `format must be one of email, uri, date, date-time (got ${JSON.stringify(property.format)})`);
    }
    if (property.pattern !== undefined && (typeof property.pattern !== 'string' || !isRegExp(property.pattern))) {
      fail(where, `pattern must be a valid regular expression (got ${JSON.stringify(property.pattern)})`);
    }
    if (property.enum !== undefined && (!isStringArray(property.enum) || property.enum.length === 0)) fail(where, 'enum must be a non-empty array of strings');
    if (property.enumNames !== undefined) {
      if (!isStringArray(property.enumNames)) fail(where, 'enumNames must be an array of strings');
      if (!Array.isArray(property.enum) || property.enumNames.length !== property.enum.length) fail(where, 'enumNames needs an enum of the same length');
    }
    if (property.oneOf !== undefined) {
      if (property.enum !== undefined) fail(where, 'use either enum or oneOf, not both');
      checkTitledOptions(where, 'oneOf', property.oneOf);
    }
  } else if (type === 'number' || type === 'integer') {
    checkNumber(where, property, 'minimum');
    checkNumber(where, property, 'maximum');
  } else if (type === 'array') {
    checkNumber(where, property, 'minItems', true);
    checkNumber(where, property, 'maxItems', true);
    const items = property.items;
    if (!isObject(items)) fail(where, 'a multi-select needs items: {type: "string", enum: [...]} or {anyOf: [{const, title}]}');
    if (items.anyOf !== undefined) {
      if (Object.keys(items).some((k) => k !== 'anyOf' && k !== 'type')) fail(`${where}.items`, 'only anyOf (and type "string") are allowed');
      if (items.type !== undefined && items.type !== 'string') fail(`${where}.items`, 'type must be "string"');
      checkTitledOptions(`${where}.items`, 'anyOf', items.anyOf);
    } else {
      if (items.type !== 'string' || !isStringArray(items.enum) || items.enum.length === 0) {
        fail(`${where}.items`, 'must be {type: "string", enum: [...]} or {anyOf: [{const, title}]}; arrays are only for multi-select enums');
      }
      if (Object.keys(items).some((k) => k !== 'type' && k !== 'enum')) fail(`${where}.items`, 'only type and enum are allowed');
    }
  }
  if (property.default !== undefined) {
    // SEP-1034: a default must match its property's type, and an enum default must be one of its values.
    const violations = schemas.compile(property)(property.default);
    if (violations) fail(where, `default ${JSON.stringify(property.default)} does not fit the property: ${describeViolations(violations)}`);
  }
}

/** Throw a TypeError naming the property at fault unless `schema` lies in the elicitation subset. */
export function checkRequestedSchema(schema: unknown, schemas: SchemaCompiler): void {
  if (!isObject(schema)) fail('', 'must be an object');
  if (schema.type !== 'object') fail('.type', 'must be "object"');
  for (const key of Object.keys(schema)) {
    if (!TOP_LEVEL_KEYS.has(key)) fail('', `'${key}' is not allowed at the top level`);
  }
  if (schema.$schema !== undefined && typeof schema.$schema !== 'string') fail('.$schema', 'must be a string');
  const properties = schema.properties;
  if (!isObject(properties)) fail('.properties', 'must be an object');
  for (const [name, property] of Object.entries(properties)) checkProperty(name, property, schemas);
  if (schema.required !== undefined) {
    if (!isStringArray(schema.required)) fail('.required', 'must be an array of property names');
    for (const name of schema.required) {
      if (!Object.hasOwn(properties, name)) fail('.required', `names '${name}', which is not a property`);
    }
  }
}
