/**
 * The status a POST of replies gets: 204 by default, 202 on request, or a choice per session, for
 * clients that take anything but 202 as a failure and then send a second, error reply for the same id.
 */
import { describe, expect, it } from 'vitest';
import { McpServer, type McpSession, StreamableHttpTransport, type StreamableHttpTransportOptions } from '../../../src/index.js';
import { recordEvents } from '../../helpers/server-events.js';
import { type RunningHttp, startHttp } from '../../helpers/servers.js';
import { useHttpSessions } from '../../helpers/http-streams.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useHttpSessions(cleanups);
const ELICIT = { elicitation: { form: {} } };
const ASK = { message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };
const STRICT_CLIENT = 'strict-202-client';

/** An initialized client named `name` with its GET stream open, and its session. */
async function openClient(running: RunningHttp, name: string) {
  const { client, session } = await h.client(running, { capabilities: ELICIT, clientInfo: { name, version: '1' } });
  const get = await client.get();
  await get.nextEvent(() => true); // the priming event: the stream is open
  return { client, session };
}

describe('replyStatus', () => {
  it('answers a reply with 204 by default', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await openClient(running, 'plain');
    running.server.requestElicitationCreate(session, ASK);
    const reply = await client.reply(0, { action: 'decline' });
    await reply.ended;
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 204, body: '' });
  });

  it('may choose per session: 202 for the client that needs it, 204 for the others', async () => {
    const seen: McpSession[] = [];
    const replyStatus = (session: McpSession) => {
      seen.push(session);
      return session.clientInfo?.name === STRICT_CLIENT ? 202 : 204;
    };
    const running = await startHttp(cleanups, undefined, { transport: { replyStatus } });
    const strict = await openClient(running, STRICT_CLIENT);
    const plain = await openClient(running, 'plain');
    running.server.requestElicitationCreate(strict.session, ASK);
    running.server.requestElicitationCreate(plain.session, ASK);
    const [toStrict, toPlain] = await Promise.all([strict.client.reply(0, { action: 'cancel' }), plain.client.reply(0, { action: 'cancel' })]);
    expect([toStrict.status, toPlain.status]).toEqual([202, 204]);
    expect(seen.sort((a, b) => (a === strict.session ? -1 : b === strict.session ? 1 : 0))).toEqual([strict.session, plain.session]);
  });

  it("a client's second, error reply for an answered request is counted and noted on debug, not reported as an error", async () => {
    const running = await startHttp(cleanups);
    const debug = recordEvents(running.server, 'debug');
    const responses = recordEvents(running.server, 'responseElicitationCreate');
    const { client, session } = await openClient(running, STRICT_CLIENT);
    running.server.requestElicitationCreate(session, ASK);
    expect((await client.reply(0, { action: 'accept', content: { name: 'Ada' } })).status).toBe(204);
    // What such a client does on a 204: it reports its own reply as failed, for the same id.
    const second = await client.post({ jsonrpc: '2.0', id: 0, error: { code: -32603, message: 'Unexpected status 204' } });
    expect(second.status).toBe(204);
    await second.ended;
    expect(responses).toHaveLength(1);
    expect(responses[0][2]).toMatchObject({ isError: false, action: 'accept', content: { name: 'Ada' } });
    expect(running.server.stats).toMatchObject({ duplicateResponses: 1, unknownResponses: 0, lateResponses: 0 });
    expect(debug).toEqual([['Ignored a duplicate reply from the client for request id 0', session]]);
    expect(running.errors).toEqual([]);
  });

  it.each([201, '202', {}])('refuses replyStatus %j with a TypeError that names the choices', (replyStatus) => {
    const server = new McpServer({ name: 's', version: '1' });
    expect(() => new StreamableHttpTransport(server, { replyStatus } as unknown as StreamableHttpTransportOptions)).toThrow(
      `Option replyStatus must be 202, 204 or a function (session) => 202 | 204; got ${JSON.stringify(replyStatus)}`,
    );
  });
});
