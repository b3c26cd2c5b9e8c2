/**
 * SseReader: the HTML standard's event-stream interpretation, fed bytes in chunks split anywhere: fields,
 * multi-line data, sticky ids, retry, comments, the three line ends, a BOM, unfinished events, and the
 * limit on an event's bytes.
 */
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseReader } from '../../../src/client/transports/sse-reader.js';

const encoder = new TextEncoder();

/** Feed `chunks` (text as UTF-8) to a new reader; the events it dispatched, and the reader. */
function read(...chunks: (string | Uint8Array)[]): { events: SseEvent[]; reader: SseReader } {
  const events: SseEvent[] = [];
  const reader = new SseReader((event) => events.push(event));
  for (const chunk of chunks) reader.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
  return { events, reader };
}

/** Every way of cutting `text` into two chunks, and into single characters. */
function splits(text: string): string[][] {
  const ways: string[][] = [[...text]];
  for (let i = 0; i <= text.length; i++) ways.push([text.slice(0, i), text.slice(i)]);
  return ways;
}

const MESSAGE = '{"jsonrpc":"2.0","id":1,"result":{}}';

describe('SseReader', () => {
  it('reads the event, id and data fields of the MCP wire format', () => {
    const { events, reader } = read(`event: message\nid: 2_1\ndata: ${MESSAGE}\n\n`);
    expect(events).toEqual([{ type: 'message', data: MESSAGE, lastEventId: '2_1' }]);
    expect(reader.lastEventId).toBe('2_1');
    expect(reader.retryMs).toBeUndefined();
  });

  it('names an event without an event field "message"', () => {
    expect(read('data: x\n\n').events).toEqual([{ type: 'message', data: 'x', lastEventId: '' }]);
  });

  it('keeps another event type for the caller to skip', () => {
    expect(read('event: endpoint\ndata: /messages?id=1\n\n').events).toEqual([{ type: 'endpoint', data: '/messages?id=1', lastEventId: '' }]);
  });

  it('joins data lines with LF, keeping empty ones, and drops only the final LF', () => {
    expect(read('data: a\ndata:\ndata:  b\ndata: c\n\n').events).toEqual([{ type: 'message', data: 'a\n\n b\nc', lastEventId: '' }]);
  });

  it('removes one space after the colon, not more, and takes a line without a colon as a field with an empty value', () => {
    expect(read('data:  two spaces\n\n').events[0].data).toBe(' two spaces');
    expect(read('data:no space\n\n').events[0].data).toBe('no space');
    expect(read('data\ndata\n\n').events[0].data).toBe('\n');
  });

  it('dispatches a priming event (an id, a retry and empty data) with data ""', () => {
    const { events, reader } = read('id: 7_0\nretry: 500\ndata: \n\n');
    expect(events).toEqual([{ type: 'message', data: '', lastEventId: '7_0' }]);
    expect(reader.retryMs).toBe(500);
  });

  it('dispatches nothing for an event with no data line, but commits its id', () => {
    const { events, reader } = read('id: 3\n\n', 'event: message\n\n');
    expect(events).toEqual([]);
    expect(reader.lastEventId).toBe('3');
  });

  it('keeps the last event id for later events that carry none, and an empty id field resets it', () => {
    const { events } = read('id: a\ndata: 1\n\ndata: 2\n\nid\ndata: 3\n\n');
    expect(events.map((e) => e.lastEventId)).toEqual(['a', 'a', '']);
  });

  it('ignores an id that contains NUL', () => {
    expect(read('id: ok\ndata: 1\n\nid: b\0d\ndata: 2\n\n').events.map((e) => e.lastEventId)).toEqual(['ok', 'ok']);
  });

  it('takes retry only when it is all ASCII digits', () => {
    expect(read('retry: 50\n\n').reader.retryMs).toBe(50);
    expect(read('retry: 50\n\nretry: 5s\n\nretry: -1\n\nretry: \n\n').reader.retryMs).toBe(50);
    expect(read('retry: 1.5\n\n').reader.retryMs).toBeUndefined();
  });

  it('ignores comments (keep-alives), unknown fields, and field names in another case', () => {
    const { events } = read(': keep-alive\n\n:\r\nfoo: bar\nData: nope\ndata: yes\n: between\n\n');
    expect(events).toEqual([{ type: 'message', data: 'yes', lastEventId: '' }]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('reads %s line ends, however the chunks are cut', (_name, eol) => {
    const text = `id: 1${eol}data: a${eol}data: b${eol}${eol}: c${eol}${eol}data: d${eol}${eol}`;
    for (const chunks of splits(text)) {
      expect(read(...chunks).events, JSON.stringify(chunks)).toEqual([
        { type: 'message', data: 'a\nb', lastEventId: '1' },
        { type: 'message', data: 'd', lastEventId: '1' },
      ]);
    }
  });

  it('takes a CRLF cut between two chunks as one line end, not as an empty line', () => {
    expect(read('data: a\r', '\ndata: b\r\n\r\n').events).toEqual([{ type: 'message', data: 'a\nb', lastEventId: '' }]);
    expect(read('data: a\r', '', '\ndata: b\r\n\r\n').events).toEqual([{ type: 'message', data: 'a\nb', lastEventId: '' }]);
  });

  it('mixes line ends in one stream', () => {
    expect(read('data: a\r\ndata: b\rdata: c\n\r\n').events).toEqual([{ type: 'message', data: 'a\nb\nc', lastEventId: '' }]);
  });

  it('drops a BOM at the start of the stream only, even in a chunk of its own', () => {
    expect(read('\uFEFFdata: x\n\n').events[0].data).toBe('x');
    expect(read('', '\uFEFF', 'data: x\n\n').events[0].data).toBe('x');
    // A second BOM is part of the first line: a field named "\uFEFFdata", which is ignored.
    expect(read('\uFEFF\uFEFFdata: x\n\n').events).toEqual([]);
    expect(read('data: \uFEFFx\n\n').events[0].data).toBe('\uFEFFx');
  });

  it('does not dispatch an event the stream ends in the middle of, nor commit its id', () => {
    const { events, reader } = read('id: 1\ndata: done\n\nid: 2\ndata: half');
    expect(events).toEqual([{ type: 'message', data: 'done', lastEventId: '1' }]);
    expect(reader.lastEventId).toBe('1');
  });

  it('reads non-ASCII text and a data line split over many chunks', () => {
    const long = 'é'.repeat(10_000);
    const chunks = [`data: ${long.slice(0, 3)}`, ...long.slice(3).match(/.{1,997}/g)!, '\n\n'];
    expect(read(...chunks).events).toEqual([{ type: 'message', data: long, lastEventId: '' }]);
  });

  it('starts from a given last event id, as a reconnection does', () => {
    const events: SseEvent[] = [];
    const reader = new SseReader((event) => events.push(event), '5_3');
    reader.push(encoder.encode('data: x\n\n'));
    expect(events).toEqual([{ type: 'message', data: 'x', lastEventId: '5_3' }]);
    expect(reader.lastEventId).toBe('5_3');
  });

  it('decodes a character whose bytes are cut between chunks, wherever the cut falls', () => {
    const bytes = encoder.encode('data: né €😀\n\n');
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(read(bytes.subarray(0, cut), bytes.subarray(cut)).events, `cut at ${cut}`).toEqual([{ type: 'message', data: 'né €😀', lastEventId: '' }]);
    }
  });
});

describe('SseReader: the limit on an event', () => {
  /** A reader with a limit of `max` bytes, its events, and how often it said an event was too large. */
  function limited(max: number) {
    const events: SseEvent[] = [];
    const tooLarge: number[] = [];
    const reader = new SseReader((event) => events.push(event), '', { maxEventBytes: max, onTooLarge: () => tooLarge.push(max) });
    return { events, tooLarge, push: (text: string) => reader.push(encoder.encode(text)), reader };
  }

  it('dispatches an event of exactly maxEventBytes (its lines and the blank line), and drops one a byte larger', () => {
    const event = 'id: 1\ndata: éé\n\n';
    const max = encoder.encode(event).length;
    expect(max).toBe(event.length + 2);
    const fits = limited(max);
    fits.push(event);
    expect([fits.events, fits.tooLarge]).toEqual([[{ type: 'message', data: 'éé', lastEventId: '1' }], []]);
    const over = limited(max - 1);
    over.push(event);
    expect([over.events, over.tooLarge]).toEqual([[], [max - 1]]);
  });

  it('counts bytes of UTF-8, not characters, and counts them as they arrive, before the line ends', () => {
    const { push, reader, tooLarge } = limited(20);
    push('data: ');
    push('ééééé');
    expect(reader.pendingBytes).toBe(16);
    push('éé');
    expect([reader.pendingBytes, tooLarge]).toEqual([20, []]);
    push('.');
    expect(tooLarge).toEqual([20]);
  });

  it('reads nothing more once an event was too large, and says so once', () => {
    const { push, events, tooLarge } = limited(16);
    push(`data: ${'x'.repeat(20)}`);
    push('\n\ndata: small\n\n');
    expect([events, tooLarge]).toEqual([[], [16]]);
  });

  it('counts each event on its own, and no comment (an SSE keep-alive) against any', () => {
    const { push, events, tooLarge } = limited(12);
    for (let i = 0; i < 3; i++) push(`: keep-alive ${'.'.repeat(20)}\ndata: ${i}\n\n`);
    expect(events.map((e) => e.data)).toEqual(['0', '1', '2']);
    expect(tooLarge).toEqual([]);
  });
});
