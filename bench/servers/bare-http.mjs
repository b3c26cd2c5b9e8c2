/**
 * The floor for HTTP: node:http parsing each JSON-RPC body and answering with canned MCP-shaped
 * results (the SSE elicitation round trip and the MRTR round included), with no protocol machinery.
 */
import { createServer } from 'node:http';
import { ELICIT_SCHEMA, serveBenchControl } from './shared.mjs';

/** Elicitation id -> the open SSE response of the call waiting for it. */
const waiting = new Map();
let nextId = 0;

/** One buffer with its length: the cheapest JSON answer node:http can give. */
function sendJson(res, body, headers = {}) {
  const payload = JSON.stringify(body);
  res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
}

const sseEvent = (message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
const text = (value) => ({ content: [{ type: 'text', text: value }] });

function answer(message, res) {
  if (message.method === 'initialize') {
    const result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '1' } };
    return sendJson(res, { jsonrpc: '2.0', id: message.id, result }, { 'mcp-session-id': 'bare' });
  }
  if (message.method === undefined) {
    // A reply to our elicitation: finish the call it belongs to.
    const call = waiting.get(message.id);
    waiting.delete(message.id);
    res.writeHead(202).end();
    call?.res.end(sseEvent({ jsonrpc: '2.0', id: call.callId, result: text(`${message.result.action}:${message.result.content?.name}`) }));
    return;
  }
  if (message.id === undefined) return void res.writeHead(202).end();
  const name = message.params?.name;
  if (name === 'ask') {
    const id = nextId++;
    waiting.set(id, { res, callId: message.id });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseEvent({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: ELICIT_SCHEMA } }));
    return;
  }
  if (name === 'ask_stateless') {
    // The two requests of an MRTR round: input-required, then the answer.
    const reply = message.params.inputResponses?.name;
    const result = reply
      ? { resultType: 'complete', ...text(`${reply.action}:${reply.content?.name}`) }
      : {
          resultType: 'input_required',
          inputRequests: { name: { method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: ELICIT_SCHEMA } } },
          requestState: 'state',
        };
    return sendJson(res, { jsonrpc: '2.0', id: message.id, result });
  }
  sendJson(res, { jsonrpc: '2.0', id: message.id, result: text(String(message.params?.arguments?.text)) });
}

const http = createServer((req, res) => {
  if (req.method === 'DELETE') return void req.resume().on('end', () => res.writeHead(200).end());
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => answer(JSON.parse(Buffer.concat(chunks).toString('utf8')), res));
});
http.listen(0, '127.0.0.1', () => serveBenchControl(http.address().port));
