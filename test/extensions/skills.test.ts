/**
 * The Skills extension (SEP-2640) through McpClient over real sockets, in both eras: the declaration,
 * skills/list and skills/get with digests and sizes, the files as resources, resources/directory/read;
 * the frontmatter reader; and the extension mechanism's gate for methods that need the client's declaration.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { type McpClient, McpServer, type McpServerOptions, SKILLS_EXTENSION, StreamableHttpTransport, useSkills } from '../../src/index.js';
import { parseFrontmatter, type SkillsOptions } from '../../src/extensions/skills.js';
import { isObject } from '../../src/protocol/jsonrpc.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startHttp, startHttpAndWebSocket } from '../helpers/servers.js';

// createHash as it is, counted: a directory read that needs no cursor should hash nothing.
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return { ...crypto, createHash: vi.fn(crypto.createHash) };
});

const cleanups = useCleanups();
const clients = useMcpClients(cleanups);

const SKILL_MD = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  owner: docs-team\n---\n\n# PDF\n';
const FORMS = '# Forms — ünïcode\n';
const sha = (text: string) => `sha256:${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')}`;
const ENTRY = {
  uri: 'skill://pdf-processing/SKILL.md',
  frontmatter: { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', metadata: { owner: 'docs-team' } },
  resources: [
    { uri: 'skill://pdf-processing/SKILL.md', digest: sha(SKILL_MD), size: Buffer.byteLength(SKILL_MD) },
    { uri: 'skill://pdf-processing/references/FORMS.md', digest: sha(FORMS), size: Buffer.byteLength(FORMS) },
  ],
};

async function serve() {
  const running = await startHttpAndWebSocket(cleanups, (server) => useSkills(server).add({ files: { 'SKILL.md': SKILL_MD, 'references/FORMS.md': FORMS } }));
  return { server: running.server, http: running.url, ws: running.wsUrl };
}

describe.each([
  ['legacy', 'ws'],
  ['modern', 'http'],
] as const)('skills, %s era over %s', (era, transport) => {
  it('declares the extension, lists the skill with each file digest and size, and gets it', async () => {
    const urls = await serve();
    const { client } = await clients.connectUrl(urls[transport], { era });
    expect(client.serverCapabilities?.extensions).toEqual({ [SKILLS_EXTENSION]: { directoryRead: true } });
    const listed = await client.request('skills/list');
    expect(listed).toMatchObject({ skills: [ENTRY] });
    expect(listed.nextCursor).toBeUndefined();
    const got = await client.request('skills/get', { uri: ENTRY.uri });
    expect(got).toMatchObject({ skill: ENTRY });
    if (era === 'modern') expect(got).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(await rpcError(client.request('skills/get', { uri: 'skill://nope/SKILL.md' }))).toEqual({
      code: -32602,
      message: 'Invalid params: no skill at "skill://nope/SKILL.md"; skills/list gives the skills this server has',
    });
  });

  it('serves the files as resources, SKILL.md named and described by its frontmatter', async () => {
    const urls = await serve();
    const { client } = await clients.connectUrl(urls[transport], { era });
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      { uri: ENTRY.uri, name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', mimeType: 'text/markdown' },
      { uri: 'skill://pdf-processing/references/FORMS.md', name: 'references/FORMS.md', mimeType: 'text/markdown' },
    ]);
    expect((await client.readResource('skill://pdf-processing/references/FORMS.md')).contents).toEqual([
      { uri: 'skill://pdf-processing/references/FORMS.md', mimeType: 'text/markdown', text: FORMS },
    ]);
  });

  it('reads a directory: its direct children, subdirectories as inode/directory; a file or unknown path is -32602', async () => {
    const urls = await serve();
    const { client } = await clients.connectUrl(urls[transport], { era });
    expect(await client.request('resources/directory/read', { uri: 'skill://pdf-processing' })).toMatchObject({
      resources: [
        { uri: ENTRY.uri, name: 'SKILL.md', mimeType: 'text/markdown' },
        { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
      ],
    });
    expect(await client.request('resources/directory/read', { uri: 'skill://pdf-processing/references' })).toMatchObject({
      resources: [{ uri: 'skill://pdf-processing/references/FORMS.md', name: 'FORMS.md', mimeType: 'text/markdown' }],
    });
    for (const uri of [ENTRY.uri, 'skill://pdf-processing/', 'skill://other']) {
      expect((await rpcError(client.request('resources/directory/read', { uri }))).code).toBe(-32602);
    }
  });
});

describe('useSkills().add', () => {
  it.each([
    [{ files: {} }, 'A skill needs a SKILL.md file, as text'],
    [{ files: { 'SKILL.md': 'no frontmatter' } }, 'SKILL.md must start with YAML frontmatter between --- lines'],
    [
      { files: { 'SKILL.md': '---\nname: Bad--Name\ndescription: d\n---\n' } },
      'SKILL.md frontmatter needs a name of 1-64 lowercase letters, digits and single hyphens; got "Bad--Name"',
    ],
    [{ files: { 'SKILL.md': '---\nname: ok\n---\n' } }, 'Skill ok: SKILL.md frontmatter needs a description'],
    [{ files: { 'SKILL.md': '---\nname: ok\ndescription: d\n---\n', '../x': 'y' } }, 'Skill ok: "../x" is not a relative file path'],
  ])('refuses %j: %s', (definition, message) => {
    const skills = useSkills(new McpServer({ name: 'x', version: '1' }));
    expect(() => skills.add(definition as never)).toThrow(new TypeError(message));
  });

  it('refuses the same skill twice, and the extension on a server twice', () => {
    const server = new McpServer({ name: 'x', version: '1' });
    const skills = useSkills(server);
    skills.add({ files: { 'SKILL.md': '---\nname: ok\ndescription: d\n---\n' } });
    expect(() => skills.add({ files: { 'SKILL.md': '---\nname: ok\ndescription: d\n---\n' } })).toThrow(new TypeError('Skill ok is already served'));
    expect(() => useSkills(server)).toThrow(new TypeError(`Extension ${SKILLS_EXTENSION} is already in use on this server`));
  });
});

describe('pages and sizes', () => {
  const manifest = (name: string, description = `skill ${name}`) => `---\nname: ${name}\ndescription: ${description}\n---\n`;

  async function serveSkills(add: (skills: ReturnType<typeof useSkills>) => void, options: SkillsOptions = {}, serverOptions: McpServerOptions = {}) {
    const { url } = await startHttp(cleanups, (server) => add(useSkills(server, options)), { server: serverOptions });
    return (await clients.connectUrl(url, { era: 'modern' })).client;
  }

  /** Every page of `method` for `params`: what each page held, and the cursors that led to them. */
  async function pages(client: McpClient, method: string, key: string, params: Record<string, unknown> = {}) {
    const held: Record<string, unknown>[][] = [];
    const cursors: string[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = (await client.request(method, cursor === undefined ? params : { ...params, cursor })) as Record<string, unknown>;
      held.push(page[key] as Record<string, unknown>[]);
      if (typeof page.nextCursor !== 'string') return { held, cursors };
      cursor = page.nextCursor;
      cursors.push(cursor);
    }
  }

  it('pages skills/list 100 at a time, with an opaque cursor that must be its own (-32602 otherwise)', async () => {
    const client = await serveSkills((skills) => {
      for (let i = 0; i < 101; i++) skills.add({ files: { 'SKILL.md': manifest(`s${i}`) } });
    });
    const { held, cursors } = await pages(client, 'skills/list', 'skills');
    expect(held.map((page) => page.length)).toEqual([100, 1]);
    expect(held.flat().map((entry) => entry.uri)).toEqual(Array.from({ length: 101 }, (_, i) => `skill://s${i}/SKILL.md`));
    expect(cursors[0]).not.toMatch(/^\d+$/);
    for (const cursor of ['x', '100', 5]) {
      expect(await rpcError(client.request('skills/list', { cursor }))).toEqual({
        code: -32602,
        message: `Invalid params: unknown cursor ${JSON.stringify(cursor)}; send the nextCursor skills/list gave`,
      });
    }
  });

  it('pages resources/directory/read 100 children at a time, in order; a cursor of another directory, or none it gave, is -32602', async () => {
    const files: Record<string, string> = { 'SKILL.md': manifest('big'), 'sub/a.txt': 'a' };
    for (let i = 0; i < 249; i++) files[`f${String(i).padStart(3, '0')}.txt`] = `file ${i}`;
    const client = await serveSkills((skills) => skills.add({ files }));
    const { held, cursors } = await pages(client, 'resources/directory/read', 'resources', { uri: 'skill://big' });
    expect(held.map((page) => page.length)).toEqual([100, 100, 51]);
    const children = held.flat();
    expect(children[0]).toEqual({ uri: 'skill://big/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown' });
    expect(children[1]).toEqual({ uri: 'skill://big/sub', name: 'sub', mimeType: 'inode/directory' });
    expect(children.slice(2).map((child) => child.name)).toEqual(Array.from({ length: 249 }, (_, i) => `f${String(i).padStart(3, '0')}.txt`));
    for (const [uri, cursor] of [
      ['skill://big/sub', cursors[0]],
      ['skill://big', 'x'],
      ['skill://big', Buffer.from('500:whatever').toString('base64url')],
    ]) {
      expect(await rpcError(client.request('resources/directory/read', { uri, cursor }))).toEqual({
        code: -32602,
        message: `Invalid params: unknown cursor ${JSON.stringify(cursor)}; send the nextCursor resources/directory/read gave for this directory`,
      });
    }
  });

  it('reads a directory that fits on one page without measuring a child again or hashing its URI', async () => {
    const client = await serveSkills((skills) => skills.add({ files: { 'SKILL.md': manifest('few'), 'a.txt': 'a', 'b.txt': 'b' } }));
    const isChild = (value: unknown) => isObject(value) && Object.keys(value).join() === 'uri,name,mimeType';
    const stringify = vi.spyOn(JSON, 'stringify');
    vi.mocked(createHash).mockClear();
    try {
      expect(await client.request('resources/directory/read', { uri: 'skill://few' })).toMatchObject({
        resources: [
          { uri: 'skill://few/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown' },
          { uri: 'skill://few/a.txt', name: 'a.txt', mimeType: 'text/plain' },
          { uri: 'skill://few/b.txt', name: 'b.txt', mimeType: 'text/plain' },
        ],
      });
      expect(stringify.mock.calls.filter(([value]) => isChild(value))).toEqual([]);
      expect(vi.mocked(createHash).mock.calls).toEqual([]);
    } finally {
      stringify.mockRestore();
    }
  });

  it('ends a directory page before the child that would take it past maxPageBytes', async () => {
    // A long MIME type makes a child large and leaves the skill's entry small.
    const mimeType = `text/plain; profile=${'p'.repeat(400)}`;
    const files: Record<string, string> = { 'SKILL.md': manifest('wide') };
    const mimeTypes: Record<string, string> = {};
    for (let i = 0; i < 5; i++) {
      files[`sub/f${i}.txt`] = `${i}`;
      mimeTypes[`sub/f${i}.txt`] = mimeType;
    }
    const childBytes = Buffer.byteLength(JSON.stringify({ uri: 'skill://wide/sub/f0.txt', name: 'f0.txt', mimeType }));
    const client = await serveSkills((skills) => skills.add({ files, mimeTypes }), { maxPageBytes: 2 * childBytes + 1, maxEntryBytes: 2 * childBytes + 1 });
    const { held } = await pages(client, 'resources/directory/read', 'resources', { uri: 'skill://wide/sub' });
    expect(held.map((page) => page.map((child) => child.name))).toEqual([['f0.txt', 'f1.txt'], ['f2.txt', 'f3.txt'], ['f4.txt']]);
  });

  it("takes the server's pageSize unless given its own", async () => {
    const files = { 'SKILL.md': manifest('few'), 'a.txt': 'a', 'b.txt': 'b' };
    const byServer = await serveSkills((skills) => skills.add({ files }), {}, { pageSize: 2 });
    expect((await pages(byServer, 'resources/directory/read', 'resources', { uri: 'skill://few' })).held.map((page) => page.length)).toEqual([2, 1]);
    const ownSize = await serveSkills((skills) => skills.add({ files }), { pageSize: 1 }, { pageSize: 2 });
    expect((await pages(ownSize, 'resources/directory/read', 'resources', { uri: 'skill://few' })).held.map((page) => page.length)).toEqual([1, 1, 1]);
  });

  it('ends a page before the entry that would take it past maxPageBytes, and keeps one entry on a page at least', async () => {
    // Five skills whose entries take the same number of bytes (names of one length).
    const add = (skills: ReturnType<typeof useSkills>) => {
      for (let i = 0; i < 5; i++) skills.add({ files: { 'SKILL.md': manifest(`s${i}`), 'notes.md': 'n' } });
    };
    const probe = await serveSkills(add);
    const entryBytes = Buffer.byteLength(JSON.stringify(((await probe.request('skills/get', { uri: 'skill://s0/SKILL.md' })) as { skill: unknown }).skill));
    const twoAPage = await serveSkills(add, { maxPageBytes: 2 * entryBytes + 1, maxEntryBytes: entryBytes });
    expect((await pages(twoAPage, 'skills/list', 'skills')).held.map((page) => page.length)).toEqual([2, 2, 1]);
    const oneAPage = await serveSkills(add, { maxPageBytes: entryBytes, maxEntryBytes: entryBytes });
    expect((await pages(oneAPage, 'skills/list', 'skills')).held.map((page) => page.length)).toEqual([1, 1, 1, 1, 1]);
  });

  it('refuses a skill whose entry would pass maxEntryBytes, serving none of its files', async () => {
    const server = new McpServer({ name: 'x', version: '1' });
    const skills = useSkills(server, { maxEntryBytes: 1000 });
    const files: Record<string, string> = { 'SKILL.md': manifest('wide') };
    for (let i = 0; i < 10; i++) files[`file-${i}.md`] = `${i}`;
    const entry = {
      uri: 'skill://wide/SKILL.md',
      frontmatter: { name: 'wide', description: 'skill wide' },
      resources: Object.entries(files).map(([path, text]) => ({ uri: `skill://wide/${path}`, digest: sha(text), size: Buffer.byteLength(text) })),
    };
    const bytes = Buffer.byteLength(JSON.stringify(entry));
    expect(bytes).toBeGreaterThan(1000);
    expect(() => skills.add({ files })).toThrow(
      new TypeError(
        `Skill wide: its entry (what skills/list and skills/get send: frontmatter and a digest per file) takes ${bytes} bytes, over maxEntryBytes (1000); split it into smaller skills, or raise maxEntryBytes`,
      ),
    );
    const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => server.close());
    const { client } = await clients.connectUrl(url, { era: 'modern' });
    expect((await client.listResources()).resources).toEqual([]);
    expect(await client.request('skills/list')).toMatchObject({ skills: [] });
  });

  it.each([
    [{ pageSize: 0 }, 'Option pageSize must be a positive integer; got 0'],
    [{ maxPageBytes: -1 }, 'Option maxPageBytes must be a positive integer; got -1'],
    [{ maxEntryBytes: 0 }, 'Option maxEntryBytes must be a positive integer; got 0'],
    [{ maxEntryBytes: 2048, maxPageBytes: 1024 }, 'Option maxEntryBytes must be at most maxPageBytes (1024), as a page holds one entry at least; got 2048'],
  ])('refuses the options %j', (options, message) => {
    expect(() => useSkills(new McpServer({ name: 'x', version: '1' }), options)).toThrow(new TypeError(message));
  });
});

describe('the frontmatter reader', () => {
  it.each([
    [
      'plain, quoted and typed scalars',
      'a: plain text\nb: "double \\"q\\""\nc: \'it\'\'s\'\nd: 42\ne: 1.5\nf: true\ng: null\nh: ~',
      { a: 'plain text', b: 'double "q"', c: "it's", d: 42, e: 1.5, f: true, g: null, h: null },
    ],
    ['a nested map and a list', 'metadata:\n  owner: me\n  level: 2\ntags:\n  - a\n  - "b c"', { metadata: { owner: 'me', level: 2 }, tags: ['a', 'b c'] }],
    ['comments and blank lines', '# about\nname: x # trailing\n\ndescription: y', { name: 'x', description: 'y' }],
  ])('reads %s', (_case, yaml, expected) => {
    expect(parseFrontmatter(`---\n${yaml}\n---\nbody`)).toEqual(expected);
  });

  it.each([
    ['description: |\n  long', 'SKILL.md frontmatter line 2: block scalars, flow collections, anchors and tags are not read; quote the value'],
    ['a:\n  b:\n    c: d', 'SKILL.md frontmatter line 3: only one level of nesting is read'],
    ['  a: b', 'SKILL.md frontmatter line 2: an indented line under no key'],
    ['just text', 'SKILL.md frontmatter line 2: expected key: value'],
  ])('refuses %j, saying where', (yaml, message) => {
    expect(() => parseFrontmatter(`---\n${yaml}\n---\n`)).toThrow(new TypeError(message));
  });
});

describe('extension methods that need the client to declare the extension', () => {
  it('answer -32021 naming the extension without the declaration, and serve with it (2026-07-28 _meta, or initialize)', async () => {
    const server = new McpServer({ name: 'gated', version: '1.0.0' });
    server.useExtension({
      id: 'com.example/secret',
      settings: {},
      methods: { 'secret/get': { handler: () => ({ secret: 42 }), requiresClientExtension: true } },
    });
    const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => server.close());
    for (const era of ['legacy', 'modern'] as const) {
      const { client: without } = await clients.connectUrl(url, { era });
      expect(await rpcError(without.request('secret/get'))).toEqual({
        code: -32021,
        message: 'secret/get needs the client to declare the extension com.example/secret (capabilities.extensions["com.example/secret"])',
        data: { requiredCapabilities: { extensions: { 'com.example/secret': {} } } },
      });
      const { client: declared } = await clients.connectUrl(url, { era, capabilities: { extensions: { 'com.example/secret': {} } } });
      expect(await declared.request('secret/get')).toMatchObject({ secret: 42 });
    }
    expect(() => server.useExtension({ id: 'com.example/other', settings: {}, methods: { 'tools/list': { handler: () => ({}) } } })).toThrow(
      new TypeError('Extension com.example/other cannot serve tools/list: the core serves it already'),
    );
    expect(() => server.useExtension({ id: 'nope', settings: {}, methods: {} })).toThrow(TypeError);
  });
});
