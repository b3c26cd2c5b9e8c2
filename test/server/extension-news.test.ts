/** An extension's news for the other instances: `share` on its handle, `shared` on theirs, through the `scale`. */
import { describe, expect, it } from 'vitest';
import { McpServer, type SharedEvent, type SharedState } from '../../src/index.js';

/** Instances joined by an in-process bus: each hears what the others broadcast, never its own. */
function bus() {
  const listeners = new Set<{ from: object; listener: (event: SharedEvent) => void }>();
  const sent: SharedEvent[] = [];
  const scale = (): SharedState => {
    const self = {};
    return {
      stateKeys: ['extension-news-key-0123456789abcdef0123'],
      consumeState: async () => true,
      broadcast: async (event) => {
        sent.push(event);
        for (const l of listeners) if (l.from !== self) l.listener(event);
      },
      onBroadcast: (listener) => {
        const entry = { from: self, listener };
        listeners.add(entry);
        return () => void listeners.delete(entry);
      },
    };
  };
  return { scale, sent };
}

describe('extension news across instances', () => {
  it("hands what one instance's extension shares to the same extension on the others, not to itself nor to other extensions", async () => {
    const { scale, sent } = bus();
    const heard: Record<string, unknown[]> = { a: [], b: [], other: [] };
    const a = new McpServer({ name: 'a', version: '1' }, { scale: scale() });
    const b = new McpServer({ name: 'b', version: '1' }, { scale: scale() });
    const handle = a.useExtension({ id: 'com.example/news', settings: {}, methods: {}, shared: (news) => heard.a.push(news) });
    b.useExtension({ id: 'com.example/news', settings: {}, methods: {}, shared: (news) => heard.b.push(news) });
    b.useExtension({ id: 'com.example/other', settings: {}, methods: {}, shared: (news) => heard.other.push(news) });
    handle.share({ task: { taskId: 't1', status: 'working' } });
    await Promise.resolve();
    expect(sent).toEqual([{ type: 'extension', id: 'com.example/news', news: { task: { taskId: 't1', status: 'working' } } }]);
    expect(heard).toEqual({ a: [], b: [{ task: { taskId: 't1', status: 'working' } }], other: [] });
    await Promise.all([a.close(), b.close()]);
  });

  it("reports a shared hook that throws on the hearing server's error event, and refuses one that is not a function", async () => {
    const { scale } = bus();
    const a = new McpServer({ name: 'a', version: '1' }, { scale: scale() });
    const b = new McpServer({ name: 'b', version: '1' }, { scale: scale() });
    const errors: unknown[] = [];
    b.on('error', (error) => errors.push(error));
    const handle = a.useExtension({ id: 'com.example/news', settings: {}, methods: {} });
    b.useExtension({
      id: 'com.example/news',
      settings: {},
      methods: {},
      shared: () => {
        throw new Error('cannot read that');
      },
    });
    handle.share({ n: 1 });
    await Promise.resolve();
    expect(errors.map((e) => (e as Error).message)).toEqual(['cannot read that']);
    expect(() => b.useExtension({ id: 'com.example/bad', settings: {}, methods: {}, shared: 42 as never })).toThrow(
      new TypeError('Extension com.example/bad: shared must be a function'),
    );
    await Promise.all([a.close(), b.close()]);
  });
});
