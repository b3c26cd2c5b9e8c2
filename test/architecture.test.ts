/**
 * The shape of src/: floors whose imports only point down, transports that see the server only through
 * its port, and no import circle (type-only imports count). Read from the source text, so it holds for
 * every file, including ones no test imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** Every .ts file under src/, as a path relative to src/ with forward slashes. */
function sourceFiles(): string[] {
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(src, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'/g;

/** The files under src/ that `file` imports (values and types alike). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(src, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1] ?? match[2];
    if (!specifier.startsWith('.')) continue;
    found.push(
      relative(src, resolve(join(src, dirname(file)), specifier))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts'),
    );
  }
  return found;
}

const files = sourceFiles();
const graph = new Map(files.map((file) => [file, importsOf(file)]));

/** The floor a file lives on: its top folder under src/ (the entry point is its own). */
function floor(file: string): string {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : file;
}

/** What each floor may import, besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  protocol: [],
  // One JSON-RPC engine for both ends (pending table, deadlines, ids, dispatch): it knows the wire alone.
  rpc: ['protocol'],
  schema: ['protocol', 'rpc'],
  elicitation: ['protocol', 'rpc', 'schema'],
  mrtr: ['protocol', 'rpc', 'schema', 'elicitation'],
  // OpenTelemetry knows the wire and the shape of a session, never the server: the server calls it.
  telemetry: ['protocol'],
  server: ['protocol', 'rpc', 'schema', 'elicitation', 'mrtr', 'telemetry'],
  // The client stands beside the server, on the same ground: it shares the wire and the rpc floor, never the server.
  client: ['protocol', 'rpc', 'schema'],
  // Extensions register methods and declarations on the server; the core knows extensions, not skills or tasks.
  extensions: ['protocol', 'rpc', 'schema', 'elicitation', 'mrtr', 'server'],
  // What several instances share sits above the server: it implements the server's SharedState, the
  // transports' SessionRouter and the Tasks extension's TaskStore (no extension imports scale).
  scale: ['protocol', 'rpc', 'server', 'transports', 'extensions'],
  // OAuth for the transports' `auth` option: it implements their authenticator, and knows nothing of the server.
  auth: ['protocol', 'transports'],
};

/** The most lines a source file may have: past it, a file holds more than one concern. */
const MAX_FILE_LINES = 450;

describe('the layout of src/', () => {
  it('reads every source file and resolves every relative import to one of them', () => {
    expect(files.length).toBeGreaterThan(50);
    const unresolved = [...graph].flatMap(([file, imports]) => imports.filter((target) => !graph.has(target)).map((target) => `${file} -> ${target}`));
    expect(unresolved).toEqual([]);
  });

  it('has floors that only import downwards: protocol <- rpc <- schema <- elicitation <- mrtr <- server, and protocol <- rpc <- schema <- client', () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const allowed = MAY_IMPORT[floor(file)];
      if (!allowed) continue;
      for (const target of imports) {
        if (floor(target) !== floor(file) && !allowed.includes(floor(target))) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('lets transports import only the server port, protocol/ and rpc/ (and their own files)', () => {
    const reaching = [...graph]
      .filter(([file]) => floor(file) === 'transports')
      .flatMap(([file, imports]) =>
        imports
          .filter((target) => !['transports', 'protocol', 'rpc'].includes(floor(target)) && target !== 'server/port.ts')
          .map((target) => `${file} -> ${target}`),
      );
    expect(reaching).toEqual([]);
  });

  it('keeps the transport adapters (http/, websocket/, stdio/) apart: each reaches the others only through the gate and the shared files beside it', () => {
    const ADAPTERS = ['transports/http/', 'transports/websocket/', 'transports/stdio/'];
    const adapterOf = (file: string) => ADAPTERS.find((folder) => file.startsWith(folder));
    const crossing = [...graph].flatMap(([file, imports]) => {
      const own = adapterOf(file);
      if (!own) return [];
      return imports.filter((target) => adapterOf(target) !== undefined && adapterOf(target) !== own).map((target) => `${file} -> ${target}`);
    });
    expect(crossing).toEqual([]);
    // Each adapter is alike: its options (defaults in one literal), its transport, its channel.
    for (const [folder, transport, channel] of [
      ['transports/http/', 'streamable-http.ts', 'http-session.ts'],
      ['transports/websocket/', 'websocket.ts', 'ws-peer.ts'],
      ['transports/stdio/', 'stdio.ts', 'stdio-channel.ts'],
    ]) {
      for (const name of ['options.ts', transport, channel]) expect(files).toContain(`${folder}${name}`);
      expect(graph.get(`${folder}${transport}`)).toContain('transports/gate.ts');
    }
    // The transports' shared floor (the gate, auth, Host and Origin, listening, the connection budget) knows no adapter.
    const shared = files.filter((file) => floor(file) === 'transports' && !adapterOf(file));
    const upward = shared.flatMap((file) => (graph.get(file) ?? []).filter((target) => adapterOf(target)).map((target) => `${file} -> ${target}`));
    expect(upward).toEqual([]);
  });

  it('decides Host, Origin, auth, draining and the session limit in the gate alone', () => {
    const DECIDES = /(?<![.\w]|function |^ +)(isHostAllowed|isOriginAllowed|authenticate|chargeConnection)\(|port\.(draining|sessionLimitReached)\b/m;
    const deciding = files.filter((file) => floor(file) === 'transports' && DECIDES.test(readFileSync(join(src, file), 'utf8')));
    expect(deciding).toEqual([
      'transports/gate.ts',
      // The CORS headers an allowed Origin gets (the gate refused the others already).
      'transports/http/cors.ts',
      // The retry hint of a stream a draining server ends: no refusal (a guest's streams, a held session's).
      'transports/http/guest-sessions.ts',
      'transports/http/session-endpoints.ts',
      // HTTP's own maxSessions and its eviction, which the gate asks through `admit(…, makeRoom)`.
      'transports/http/session-registry.ts',
    ]);
  });

  it(`keeps every source file within ${MAX_FILE_LINES} lines`, () => {
    const lines = (file: string) => readFileSync(join(src, file), 'utf8').split('\n').length - 1;
    const long = files.filter((file) => lines(file) > MAX_FILE_LINES).map((file) => `${file}: ${lines(file)} lines`);
    expect(long).toEqual([]);
  });

  it('has no import circle, type-only imports included', () => {
    // Tarjan's strongly connected components: any component of more than one file is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    let counter = 0;
    const visit = (file: string): void => {
      index.set(file, counter);
      low.set(file, counter++);
      stack.push(file);
      onStack.add(file);
      for (const target of graph.get(file) ?? []) {
        if (!index.has(target)) {
          visit(target);
          low.set(file, Math.min(low.get(file)!, low.get(target)!));
        } else if (onStack.has(target)) {
          low.set(file, Math.min(low.get(file)!, index.get(target)!));
        }
      }
      if (low.get(file) !== index.get(file)) return;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component.sort());
    };
    for (const file of files) if (!index.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it("keeps the client's core, the rpc floor and the browser entry free of Node-only modules: only the Node transports reach node: and ws", () => {
    const nodeOnly = (file: string) =>
      [...readFileSync(join(src, file), 'utf8').matchAll(SPECIFIER)].map((m) => m[1] ?? m[2]).filter((specifier) => /^node:|^ws$/.test(specifier));
    const core = files.filter((file) => floor(file) === 'client' && !file.startsWith('client/transports/'));
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    // The browser entry too: McpClient, fetch-based HTTP and the platform's WebSocket (node:http loads only under Node, by import()).
    // And the rpc floor whole, which the server shares: nothing in it may need Node.
    for (const file of [...core, 'browser.ts', ...files.filter((file) => floor(file) === 'rpc')]) visit(file);
    const offending = [...reached].flatMap((file) => nodeOnly(file).map((specifier) => `${file} -> ${specifier}`));
    expect(core).toContain('client/mcp-client.ts');
    expect(reached).toContain('rpc/peer.ts');
    expect(reached).toContain('client/transports/streamable-http.ts');
    expect(reached).toContain('client/transports/browser-websocket.ts');
    expect(offending).toEqual([]);
  });

  it('decides the era in one classifier: only protocol/versions.ts reads the _meta protocol-version claim', () => {
    const readers = files.filter((file) => /\bmodernClaim\s*\(/.test(readFileSync(join(src, file), 'utf8')) && file !== 'protocol/versions.ts');
    expect(readers).toEqual([]);
    const branching = files.filter((file) => /\.era\s*===/.test(readFileSync(join(src, file), 'utf8')));
    expect(branching).toEqual([]);
  });
});
