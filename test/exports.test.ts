/** The package exports exactly what docs/api.md lists, name for name. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const BROWSER_REEXPORT = "export * from './browser.js';";
const browser = read('src/browser.ts');
/** The main entry's exports as one text: its `export * from './browser.js'` read as the browser entry's own lines. */
const index = read('src/index.ts').replace(BROWSER_REEXPORT, browser);

/** Names in `export { ... } from` (values) and `export type { ... } from` (types) of an entry point. */
function exported(kind: 'value' | 'type', source = index): string[] {
  const pattern = kind === 'value' ? /export \{([^}]*)\} from/g : /export type \{([^}]*)\} from/g;
  return [...source.matchAll(pattern)].flatMap((m) =>
    m[1]
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

/** The types `export type * from './protocol/types.js'` brings: that module's interfaces and type aliases. */
function wireTypes(): string[] {
  expect(index).toContain("export type * from './protocol/types.js';");
  return [...read('src/protocol/types.ts').matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
}

const api = read('docs/api.md');
/** The names docs/api.md lists, one a line: each line that starts `- \`Name\``. */
const listedNames = (): string[] => [...api.matchAll(/^- `(\w+)`/gm)].map((m) => m[1]);
/** The names its `switchboard-mcp/browser` section gives, the wire types aside (it says it has them all). */
const browserSectionNames = (): string[] => [...api.slice(api.indexOf('## `switchboard-mcp/browser`')).matchAll(/`(\w+)`/g)].map((m) => m[1]);

describe('package exports', () => {
  it('docs/api.md lists every export of the entry point, and nothing more', () => {
    const fromSource = [...exported('value'), ...exported('type'), ...wireTypes()].sort();
    expect(new Set(fromSource).size).toBe(fromSource.length);
    expect(listedNames().sort()).toEqual(fromSource);
  });

  it('docs/api.md names what the browser entry exports besides the wire types, and nothing more', () => {
    expect(browser).toContain("export type * from './protocol/types.js';");
    expect(browserSectionNames().sort()).toEqual([...exported('value', browser), ...exported('type', browser)].sort());
  });

  it('the built package exports at runtime exactly the value exports of the entry point', async () => {
    const runtime = Object.keys(await import('switchboard-mcp')).sort();
    expect(runtime).toEqual(exported('value').sort());
  });

  it('re-exports the browser entry whole from the main entry, the same values, escapeControls among them', async () => {
    expect(read('src/index.ts')).toContain(BROWSER_REEXPORT);
    expect(exported('value', browser).filter((name) => !exported('value').includes(name))).toEqual([]);
    expect(exported('type', browser).filter((name) => !exported('type').includes(name))).toEqual([]);
    const [main, client] = await Promise.all([import('../src/index.js'), import('../src/browser.js')]);
    for (const [name, value] of Object.entries(client)) expect((main as Record<string, unknown>)[name], name).toBe(value);
    expect(client.escapeControls).toBe(main.escapeControls);
    expect(main.escapeControls('\x1b[2J\u202E')).toBe('\\x1b[2J<U+202E>');
  });

  it('keeps internal helpers out: no UriTemplate, negotiateProtocolVersion or normalizeClientCapabilities', async () => {
    const runtime = await import('switchboard-mcp');
    for (const name of ['UriTemplate', 'negotiateProtocolVersion', 'normalizeClientCapabilities', 'McpSession', 'RequestContext', 'RequestEvent']) {
      expect(runtime, name).not.toHaveProperty(name);
    }
  });
});
