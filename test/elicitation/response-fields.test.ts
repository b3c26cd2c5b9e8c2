/**
 * The response events of elicitation, sampling and roots carry the same keys whether the request
 * succeeded or failed, absent ones undefined: sgc-style listeners read them without `in` checks.
 */
import { describe, expect, it } from 'vitest';
import { CAPS, responseLog } from '../helpers/client-requests.js';
import { startWebSocket } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

const ERROR_KEYS = ['errorCode', 'errorData', 'errorMessage', 'isError'];
const ASK = { message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };
const SAMPLE = { messages: [{ role: 'user' as const, content: { type: 'text', text: 'Hi' } }], maxTokens: 5 };
const ANSWERS = {
  elicitation: { action: 'accept', content: { name: 'Ada' } },
  sampling: { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm', stopReason: 'endTurn' },
  roots: { roots: [{ uri: 'file:///work' }] },
};

const KINDS = [
  ['elicitation', 'responseElicitationCreate', 'elicitation/create', ['action', 'content']],
  ['sampling', 'responseSamplingCreateMessage', 'sampling/createMessage', ['content', 'model', 'role', 'stopReason']],
  ['roots', 'responseRootsList', 'roots/list', ['roots']],
] as const;

async function sendEach(answer: (client: Awaited<ReturnType<typeof h.open>>['client'], id: number) => void) {
  const running = await startWebSocket(cleanups);
  const logs = KINDS.map(([, event]) => responseLog(running.server, event));
  const { client, session } = await h.open(running, { capabilities: { ...CAPS.form, ...CAPS.sampling, ...CAPS.roots } });
  running.server.requestElicitationCreate(session, ASK);
  running.server.requestSamplingCreateMessage(session, SAMPLE);
  running.server.requestRootsList(session);
  for (const [i, [, , method]] of KINDS.entries()) {
    await client.nextMessage(method);
    answer(client, i);
  }
  return Promise.all(logs.map(async (log) => (await log.next())[2] as Record<string, unknown>));
}

describe('response events', () => {
  it('on success: isError false, the error keys present and undefined, and every field of the result', async () => {
    const responses = await sendEach((client, i) => client.respond(i, ANSWERS[KINDS[i][0]]));
    for (const [i, [kind, , , fields]] of KINDS.entries()) {
      expect(Object.keys(responses[i]).sort(), kind).toEqual([...ERROR_KEYS, ...fields].sort());
      expect(responses[i], kind).toMatchObject({ isError: false, errorCode: undefined, errorMessage: undefined, errorData: undefined, ...ANSWERS[kind] });
    }
  });

  it('on failure: isError true, the error, and every field of the result present and undefined', async () => {
    const responses = await sendEach((client, i) => client.respondError(i, -32603, `no ${i}`));
    for (const [i, [kind, , , fields]] of KINDS.entries()) {
      expect(Object.keys(responses[i]).sort(), kind).toEqual([...ERROR_KEYS, ...fields].sort());
      const undefinedFields = Object.fromEntries(fields.map((field) => [field, undefined]));
      expect(responses[i], kind).toStrictEqual({ isError: true, errorCode: -32603, errorMessage: `no ${i}`, errorData: undefined, ...undefinedFields });
    }
  });
});
