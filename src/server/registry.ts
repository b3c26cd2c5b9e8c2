/** An ordered registry of named entries whose wire descriptors are listed page by page. */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { quote } from '../protocol/quote.js';

export interface Registration {
  /** Remove the entry; later calls do nothing. */
  remove(): void;
}

export class Registry<Entry extends { descriptor: Descriptor; legacyDescriptor?: Descriptor }, Descriptor = Entry['descriptor']> {
  private readonly entries = new Map<string, Entry>();
  private listing: Descriptor[] | undefined;
  private legacyListing: Descriptor[] | undefined;
  /** Entries whose legacyDescriptor is not their descriptor: with none, both eras share one listing. */
  private differing = 0;

  /** @param onChange called after each add or remove, so the server can send `list_changed`. */
  constructor(
    private readonly noun: string,
    private readonly onChange: () => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  values(): IterableIterator<Entry> {
    return this.entries.values();
  }

  add(key: string, entry: Entry): Registration {
    if (this.entries.has(key)) throw new Error(`${this.noun} '${key}' is already registered; remove it before registering it again`);
    this.entries.set(key, entry);
    if (differs(entry)) this.differing++;
    this.changed();
    return { remove: () => this.remove(key, entry) };
  }

  /** Remove `key`; with `entry`, only if that entry is still the one registered under it. */
  remove(key: string, entry?: Entry): boolean {
    const current = this.entries.get(key);
    if (!current || (entry && current !== entry)) return false;
    this.entries.delete(key);
    if (differs(current)) this.differing--;
    this.changed();
    return true;
  }

  /**
   * One page of descriptors; `legacy`: as versions before 2026-07-28 see them (an entry's
   * `legacyDescriptor`, where it has one). The cursor is opaque to clients: it encodes the offset of the page.
   */
  page(cursor: unknown, pageSize: number, legacy = false): { items: Descriptor[]; nextCursor?: string } {
    // Built once per change and frozen: every list call shares it.
    const all =
      legacy && this.differing > 0
        ? (this.legacyListing ??= Object.freeze(Array.from(this.entries.values(), (e) => e.legacyDescriptor ?? e.descriptor)) as Descriptor[])
        : (this.listing ??= Object.freeze(Array.from(this.entries.values(), (e) => e.descriptor)) as Descriptor[]);
    const start = cursor === undefined ? 0 : decodeCursor(cursor);
    if (start === 0 && all.length <= pageSize) return { items: all };
    const end = start + pageSize;
    return end < all.length ? { items: all.slice(start, end), nextCursor: encodeCursor(end) } : { items: all.slice(start) };
  }

  private changed(): void {
    this.listing = this.legacyListing = undefined;
    this.onChange();
  }
}

function differs(entry: { descriptor: unknown; legacyDescriptor?: unknown }): boolean {
  return entry.legacyDescriptor !== undefined && entry.legacyDescriptor !== entry.descriptor;
}

function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function decodeCursor(cursor: unknown): number {
  // pagination.mdx: an invalid cursor SHOULD give -32602.
  if (typeof cursor === 'string') {
    const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
    if (match) return Number(match[1]);
  }
  throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${quote(cursor)}; pass back a nextCursor from an earlier page`);
}
