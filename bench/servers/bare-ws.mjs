/**
 * The floor for WebSocket: a `ws` server parsing each frame and answering with canned MCP-shaped
 * results; for elicitation it sends `elicitation/create` on the socket and ends the call on the reply.
 */
import { WebSocketServer } from 'ws';
import { ELICIT_SCHEMA, serveBenchControl } from './shared.mjs';

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (offered) => (offered.has('mcp') ? 'mcp' : false) });

wss.on('connection', (ws) => {
  /** Elicitation id -> the tools/call id waiting for it. */
  const waiting = new Map();
  let nextId = 0;
  const reply = (id, result) => ws.send(JSON.stringify({ jsonrpc: '2.0', id, result }));
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.method === undefined) {
      const callId = waiting.get(message.id);
      waiting.delete(message.id);
      return reply(callId, { content: [{ type: 'text', text: `${message.result.action}:${message.result.content?.name}` }] });
    }
    if (message.id === undefined) return;
    if (message.method === 'initialize') {
      return reply(message.id, { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '1' } });
    }
    if (message.params?.name === 'ask') {
      const id = nextId++;
      waiting.set(id, message.id);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: ELICIT_SCHEMA } }));
      return;
    }
    reply(message.id, { content: [{ type: 'text', text: String(message.params?.arguments?.text) }] });
  });
});
wss.on('listening', () => serveBenchControl(wss.address().port));
