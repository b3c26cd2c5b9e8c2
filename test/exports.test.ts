/** The package exports exactly what the README's "Package exports" section lists, name for name. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const index = read('src/index.ts');

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

function readmeNames(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('## Package exports');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/`(\w+)`/g)].map((m) => m[1]).filter((name) => name !== 'switchboard' && name !== 'mcp');
}

describe('package exports', () => {
  it('the README lists every export of the entry point, and nothing more', () => {
    const fromSource = [...exported('value'), ...exported('type'), ...wireTypes()].sort();
    expect(new Set(fromSource).size).toBe(fromSource.length);
    expect(readmeNames().sort()).toEqual(fromSource);
  });

  it('the built package exports at runtime exactly the value exports of the entry point', async () => {
    const runtime = Object.keys(await import('switchboard-mcp')).sort();
    expect(runtime).toEqual(exported('value').sort());
  });

  it('exports from the browser entry only what the main entry exports, escapeControls among them, the same function', async () => {
    const browser = read('src/browser.ts');
    expect(
      exported('value')
        .filter((name) => exported('value', browser).includes(name))
        .sort(),
    ).toEqual(exported('value', browser).sort());
    expect(
      exported('type')
        .filter((name) => exported('type', browser).includes(name))
        .sort(),
    ).toEqual(exported('type', browser).sort());
    const [main, client] = await Promise.all([import('../src/index.js'), import('../src/browser.js')]);
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
