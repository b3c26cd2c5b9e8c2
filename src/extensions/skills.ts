/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a skill is a directory of files
 * whose `SKILL.md` starts with YAML frontmatter (a `name` and a `description`). Each file is a resource
 * at `skill://<name>/<path>`; `skills/list` and `skills/get` describe skills with every file's digest and
 * size, and `resources/directory/read` lists a directory's direct children. Lists come in pages.
 */
import { createHash } from 'node:crypto';
import { isObject } from '../protocol/jsonrpc.js';
import { positiveInteger } from '../protocol/option-checks.js';
import { quote } from '../protocol/quote.js';
import { invalidExtensionParams } from '../server/extensions.js';
import type { McpServer } from '../server/mcp-server.js';
import type { ExtensionMethod } from '../server/extension-api.js';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

export interface SkillsOptions {
  /** Entries on one page of `skills/list` and `resources/directory/read` (default: the server's `pageSize`, 100). */
  pageSize?: number;
  /** The most bytes of entries on one page (default 1 MiB); a page holds one entry at least. */
  maxPageBytes?: number;
  /** The most bytes one skill's entry, what `skills/get` answers, may take (default 256 KiB); `add` refuses a larger skill. */
  maxEntryBytes?: number;
}

export interface SkillDefinition {
  /** The skill's files by path inside it (`SKILL.md`, `references/FORMS.md`, ...), as UTF-8 text. */
  files: Readonly<Record<string, string>>;
  /** MIME types by path; by default `text/markdown` for `.md` files and `text/plain` for the rest. */
  mimeTypes?: Readonly<Record<string, string>>;
}

export interface SkillEntry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
}

/** A directory's child and its size as JSON in bytes, measured once when its skill is added. */
interface ListedChild {
  child: DirectoryChild;
  bytes: number;
}

interface Skill {
  name: string;
  entry: SkillEntry;
  /** The entry's size as JSON, in bytes. */
  entryBytes: number;
  /** Directory paths ('' for the root) and their direct children. */
  directories: Map<string, ListedChild[]>;
}

interface PageLimits {
  pageSize: number;
  maxPageBytes: number;
}

/** SEP-2640 names: 1-64 of a-z, 0-9 and hyphens, no leading, trailing or double hyphen. */
const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
// SEP-2640's 512 files to a skill, at 500 bytes an entry.
const DEFAULT_MAX_ENTRY_BYTES = 256 * 1024;
const DEFAULT_MAX_PAGE_BYTES = 1024 * 1024;

export class Skills {
  private readonly skills = new Map<string, Skill>();
  private readonly limits: PageLimits;
  private readonly maxEntryBytes: number;

  constructor(
    private readonly server: McpServer,
    options: SkillsOptions = {},
  ) {
    this.limits = { pageSize: options.pageSize ?? server.options.pageSize, maxPageBytes: options.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES };
    this.maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
    positiveInteger('pageSize', this.limits.pageSize);
    positiveInteger('maxPageBytes', this.limits.maxPageBytes);
    positiveInteger('maxEntryBytes', this.maxEntryBytes);
    if (this.maxEntryBytes > this.limits.maxPageBytes) {
      throw new TypeError(
        `Option maxEntryBytes must be at most maxPageBytes (${this.limits.maxPageBytes}), as a page holds one entry at least; got ${this.maxEntryBytes}`,
      );
    }
    const methods: Record<string, ExtensionMethod['handler']> = {
      'skills/list': ({ params }) => this.list(params.cursor),
      'skills/get': ({ params }) => ({ skill: this.find(params.uri).entry }),
      'resources/directory/read': ({ params }) => this.directory(params.uri, params.cursor),
    };
    server.useExtension({
      id: SKILLS_EXTENSION,
      settings: { directoryRead: true },
      methods: Object.fromEntries(Object.entries(methods).map(([name, handler]) => [name, { handler, cacheable: true }])),
    });
  }

  /** Serve a skill: its files become resources, and `skills/list` lists it. Returns its `SKILL.md` URI. */
  add(definition: SkillDefinition): string {
    if (!isObject(definition) || !isObject(definition.files)) throw new TypeError('A skill needs { files: { "SKILL.md": "...", ... } }');
    const files = Object.entries(definition.files);
    const manifest = definition.files['SKILL.md'];
    if (typeof manifest !== 'string') throw new TypeError('A skill needs a SKILL.md file, as text');
    const frontmatter = parseFrontmatter(manifest);
    const name = frontmatter.name;
    if (typeof name !== 'string' || !SKILL_NAME.test(name)) {
      throw new TypeError(`SKILL.md frontmatter needs a name of 1-64 lowercase letters, digits and single hyphens; got ${quote(name)}`);
    }
    if (typeof frontmatter.description !== 'string' || frontmatter.description === '')
      throw new TypeError(`Skill ${name}: SKILL.md frontmatter needs a description`);
    if (this.skills.has(name)) throw new TypeError(`Skill ${name} is already served`);
    const root = `skill://${name}`;
    const resources: SkillEntry['resources'] = [];
    const served: { uri: string; text: string; described: { name: string; description?: string; mimeType: string } }[] = [];
    const directories = new Map<string, ListedChild[]>([['', []]]);
    // SKILL.md first: it is the skill's entry point.
    for (const [path, text] of [['SKILL.md', manifest] as const, ...files.filter(([path]) => path !== 'SKILL.md')]) {
      if (typeof text !== 'string') throw new TypeError(`Skill ${name}: file ${path} must be text`);
      const segments = path.split('/');
      if (segments.some((s) => s === '' || s === '.' || s === '..')) throw new TypeError(`Skill ${name}: ${quote(path)} is not a relative file path`);
      const uri = `${root}/${path}`;
      const mimeType = definition.mimeTypes?.[path] ?? (path.endsWith('.md') ? 'text/markdown' : 'text/plain');
      const bytes = Buffer.from(text, 'utf8');
      resources.push({ uri, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.length });
      // Each directory on the way, and the file in its own.
      for (let depth = 0; depth < segments.length; depth++) {
        const parent = segments.slice(0, depth).join('/');
        const here = segments.slice(0, depth + 1).join('/');
        const children = directories.get(parent)!;
        const isFile = depth === segments.length - 1;
        if (children.some(({ child }) => child.uri === `${root}/${here}`)) continue;
        const child = { uri: `${root}/${here}`, name: segments[depth]!, mimeType: isFile ? mimeType : 'inode/directory' };
        children.push({ child, bytes: jsonBytes(child) });
        if (!isFile) directories.set(here, []);
      }
      const described = path === 'SKILL.md' ? { name, description: frontmatter.description as string } : { name: path };
      served.push({ uri, text, described: { ...described, mimeType } });
    }
    const entry: SkillEntry = { uri: `${root}/SKILL.md`, frontmatter, resources };
    const entryBytes = jsonBytes(entry);
    if (entryBytes > this.maxEntryBytes) {
      throw new TypeError(
        `Skill ${name}: its entry (what skills/list and skills/get send: frontmatter and a digest per file) takes ${entryBytes} bytes, over maxEntryBytes (${this.maxEntryBytes}); split it into smaller skills, or raise maxEntryBytes`,
      );
    }
    for (const { uri, text, described } of served) this.server.registerResource(uri, described, () => text);
    this.skills.set(name, { name, entry, entryBytes, directories });
    return entry.uri;
  }

  private list(cursor: unknown): Record<string, unknown> {
    const all = [...this.skills.values()];
    const start = offsetOf(cursor, SKILLS_LISTING, all.length, 'skills/list gave');
    const { page, next } = pageOf(all, start, (skill) => skill.entryBytes, this.limits);
    const skills = page.map((skill) => skill.entry);
    return next === undefined ? { skills } : { skills, nextCursor: cursorAt(SKILLS_LISTING, next) };
  }

  private find(uri: unknown): Skill {
    const skill = typeof uri === 'string' ? this.skills.get(skillName(uri) ?? '') : undefined;
    if (!skill || skill.entry.uri !== uri) throw invalidExtensionParams(`no skill at ${quote(uri)}; skills/list gives the skills this server has`);
    return skill;
  }

  private directory(uri: unknown, cursor: unknown): Record<string, unknown> {
    const children = this.childrenOf(uri);
    const start =
      cursor === undefined ? 0 : offsetOf(cursor, directoryListing(uri as string), children.length, 'resources/directory/read gave for this directory');
    const { page, next } = pageOf(children, start, (listed) => listed.bytes, this.limits);
    const resources = page.map(({ child }) => ({ ...child }));
    return next === undefined ? { resources } : { resources, nextCursor: cursorAt(directoryListing(uri as string), next) };
  }

  private childrenOf(uri: unknown): readonly ListedChild[] {
    if (typeof uri === 'string' && uri.startsWith('skill://') && !uri.endsWith('/')) {
      const [name, ...rest] = uri.slice('skill://'.length).split('/');
      const children = this.skills.get(name!)?.directories.get(rest.join('/'));
      if (children) return children;
    }
    throw invalidExtensionParams(`${quote(uri)} is no directory of a skill (a skill's root is skill://<name>, without a trailing slash)`);
  }
}

/** Serve the Skills extension on `server`; add skills with `.add({ files })`. */
export function useSkills(server: McpServer, options: SkillsOptions = {}): Skills {
  return new Skills(server, options);
}

/** What a skills/list cursor is bound to. */
const SKILLS_LISTING = 'skills';

/** What a directory's cursors are bound to: a digest of its URI, made only for a cursor (a page that is all of it needs none). */
function directoryListing(uri: string): string {
  return createHash('sha256').update(uri).digest('base64url').slice(0, 16);
}

/** An opaque cursor: the offset of the next page, bound to the listing it pages (skills only grow, so offsets hold). */
function cursorAt(listing: string, offset: number): string {
  return Buffer.from(`${offset}:${listing}`).toString('base64url');
}

/** Where a page starts: 0 without a cursor; a cursor this listing did not give is -32602. */
function offsetOf(cursor: unknown, listing: string, total: number, gave: string): number {
  if (cursor === undefined) return 0;
  const match = typeof cursor === 'string' ? /^(\d{1,9}):(.+)$/s.exec(Buffer.from(cursor, 'base64url').toString()) : null;
  if (match && match[2] === listing && Number(match[1]) < total) return Number(match[1]);
  throw invalidExtensionParams(`unknown cursor ${quote(cursor)}; send the nextCursor ${gave}`);
}

/** The page from `start`: `pageSize` items at most, and no more than `maxPageBytes` of them past the first. */
function pageOf<T>(items: readonly T[], start: number, bytesOf: (item: T) => number, limits: PageLimits): { page: T[]; next: number | undefined } {
  let end = start;
  let bytes = 0;
  while (end < items.length && end - start < limits.pageSize) {
    bytes += bytesOf(items[end]!);
    if (bytes > limits.maxPageBytes && end > start) break;
    end++;
  }
  return { page: items.slice(start, end), next: end < items.length ? end : undefined };
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/** The skill name in `skill://<name>/SKILL.md`. */
function skillName(uri: string): string | undefined {
  const match = /^skill:\/\/([^/]+)\/SKILL\.md$/.exec(uri);
  return match?.[1];
}

/**
 * The YAML frontmatter of a SKILL.md, for the common shapes: `key: value` lines with plain, quoted,
 * numeric, boolean or null scalars, and one level of nested `key:` maps or `- item` lists. Anything else
 * is refused with where it is, rather than guessed at.
 */
export function parseFrontmatter(text: string): Record<string, unknown> {
  const match = FRONTMATTER.exec(text);
  if (!match) throw new TypeError('SKILL.md must start with YAML frontmatter between --- lines');
  const lines = match[1]!.split(/\r?\n/);
  const out: Record<string, unknown> = {};
  let open: { key: string; value: Record<string, unknown> | unknown[] | undefined } | undefined;
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const where = `SKILL.md frontmatter line ${index + 2}`;
    if (/^\s/.test(line)) {
      if (!open) throw new TypeError(`${where}: an indented line under no key`);
      const item = /^\s+-\s+(.*)$/.exec(line);
      if (item) {
        if (open.value !== undefined && !Array.isArray(open.value)) throw new TypeError(`${where}: a list item in a map`);
        const list: unknown[] = (open.value as unknown[] | undefined) ?? [];
        list.push(scalar(item[1]!, where));
        open.value = list;
      } else {
        const pair = /^\s+([^\s:#][^:#]*?):(?:\s+(.*))?$/.exec(line);
        if (!pair || pair[2] === undefined) throw new TypeError(`${where}: only one level of nesting is read`);
        if (Array.isArray(open.value)) throw new TypeError(`${where}: a map entry in a list`);
        const map: Record<string, unknown> = (open.value as Record<string, unknown> | undefined) ?? {};
        map[pair[1]!] = scalar(pair[2], where);
        open.value = map;
      }
      out[open.key] = open.value;
      continue;
    }
    const pair = /^([^\s:#][^:#]*?):(?:\s+(.*))?$/.exec(line);
    if (!pair) throw new TypeError(`${where}: expected key: value`);
    const [, key, value] = pair;
    if (key === '__proto__') throw new TypeError(`${where}: __proto__ is no key`);
    if (value === undefined || value.trim() === '') {
      open = { key: key!, value: undefined };
      out[key!] = null;
    } else {
      open = undefined;
      out[key!] = scalar(value, where);
    }
  }
  return out;
}

/** One YAML 1.2 core-schema scalar. */
function scalar(raw: string, where: string): unknown {
  const value = raw.replace(/\s+#.*$/, '').trim();
  if (value.startsWith('"')) {
    try {
      return JSON.parse(value);
    } catch {
      throw new TypeError(`${where}: a double-quoted string that does not end, or has an escape YAML does not share with JSON`);
    }
  }
  if (value.startsWith("'")) {
    if (!value.endsWith("'") || value.length < 2) throw new TypeError(`${where}: a single-quoted string that does not end`);
    return value.slice(1, -1).replace(/''/g, "'");
  }
  if (/^[|>[{&*!%@`]/.test(value)) throw new TypeError(`${where}: block scalars, flow collections, anchors and tags are not read; quote the value`);
  if (/^(null|Null|NULL|~)?$/.test(value)) return null;
  if (/^(true|True|TRUE)$/.test(value)) return true;
  if (/^(false|False|FALSE)$/.test(value)) return false;
  if (/^[-+]?[0-9]+$/.test(value)) return Number(value);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(value)) return Number(value);
  return value;
}
