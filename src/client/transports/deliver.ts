/** What the client transports share on the way in: text to messages for the sink, and a sink that cannot throw back. */
import { decode } from '../../protocol/jsonrpc.js';
import { quote } from '../../protocol/quote.js';
import type { ClientSink } from '../transport.js';

/**
 * `sink`, with calls that cannot throw into a socket or stream listener (a throw there ends the process)
 * and a `closed` that runs at most once, after which nothing more is delivered.
 */
export function guardSink(sink: ClientSink): ClientSink {
  let closed = false;
  const report = (err: unknown) => {
    try {
      sink.error(err instanceof Error ? err : new Error(`The client sink threw ${quote(err)}`));
    } catch {
      // A sink whose error() throws has no other place to report to.
    }
  };
  return {
    message(message) {
      if (closed) return;
      try {
        sink.message(message);
      } catch (err) {
        report(err);
      }
    },
    error(error) {
      if (!closed) report(error);
    },
    closed(reason) {
      if (closed) return;
      closed = true;
      try {
        sink.closed(reason);
      } catch (err) {
        report(err);
      }
    },
  };
}

/**
 * One WebSocket frame or stdio line to the sink: a batch member by member. Text that is not JSON goes to
 * `error`: with no id to read, the client cannot answer it.
 */
export function deliverText(sink: ClientSink, text: string, unit: string): void {
  const decoded = decode(text);
  if (decoded.kind === 'parse-error') {
    sink.error(new Error(`The server sent a ${unit} that is not JSON (${decoded.error.message}): ${quote(text, 200)}`));
    return;
  }
  for (const message of decoded.kind === 'batch' ? decoded.values : [decoded.value]) sink.message(message);
}
