/**
 * SseReader: the HTML standard's event-stream interpretation, fed in chunks split anywhere: fields,
 * multi-line data, sticky ids, retry, comments, the three line ends, a BOM, and unfinished events.
 */
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseReader } from '../../src/client/transports/sse-reader.js';

/** Feed `chunks` to a new reader; the events it dispatched, and the reader. */
function read(...chunks: string[]): { events: SseEvent[]; reader: SseReader } {
  const events: SseEvent[] = [];
  const reader = new SseReader((event) => events.push(event));
  for (const chunk of chunks) reader.push(chunk);
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
    reader.push('data: x\n\n');
    expect(events).toEqual([{ type: 'message', data: 'x', lastEventId: '5_3' }]);
    expect(reader.lastEventId).toBe('5_3');
  });
});
