/**
 * Small DOM helpers for the console: no framework, just elements. Every text they set passes escapeControls,
 * so a server's string shows its bidi controls and invisible characters (`<U+202E>`) instead of obeying them.
 */
import { escapeControls } from '../../src/browser.js';

type Attr = string | number | boolean | undefined | null;
type Child = Node | string | false | null | undefined;

/** An element with attributes (false/null/undefined are left out, true is an empty attribute) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, Attr> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...shown(children));
  return node;
}

/** Replace a node's children (false/null/undefined are left out). */
export function fill(node: Element, ...children: Child[]): void {
  node.replaceChildren(...shown(children));
}

/** Set a node's text, escaped as h() escapes it. */
export function setText(node: Node, text: string): void {
  node.textContent = visible(text);
}

/** Text as shown: line feeds kept (a <pre> shows them), everything else invisible or reordering made visible. */
function visible(text: string): string {
  return escapeControls(String(text), { multiline: true });
}

function shown(children: Child[]): (Node | string)[] {
  return children
    .filter((child) => child !== false && child !== null && child !== undefined)
    .map((child) => (child instanceof Node ? child : visible(child as string)));
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

let nextId = 0;
/** A unique element id. */
export function uid(prefix: string): string {
  return `${prefix}-${++nextId}`;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON on one line, or pretty; never throws. */
export function json(value: unknown, pretty = false): string {
  try {
    return JSON.stringify(value, null, pretty ? 2 : undefined) ?? String(value);
  } catch {
    return String(value);
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'number' ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
