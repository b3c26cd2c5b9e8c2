/**
 * The floor: a bare node:http responder that parses each JSON-RPC body and answers it with canned
 * MCP-shaped results, including the SSE elicitation round trip, with no protocol machinery at all.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveBenchControl } from './shared.js';

const waiting = new Map<number, { res: ServerResponse; callId: unknown }>();
let nextId = 0;

const http = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (message.method === 'initialize') {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'bare' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: message.id,
          result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '1' } },
        }),
      );
      return;
    }
    if (message.method === undefined) {
      // A reply to our elicitation: finish the call it belongs to.
      const call = waiting.get(message.id);
      waiting.delete(message.id);
      res.writeHead(204).end();
      if (call) {
        call.res.write(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: call.callId, result: { content: [{ type: 'text', text: `${message.result.action}:${message.result.content?.name}` }] } })}\n\n`,
        );
        call.res.end();
      }
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (message.params?.name === 'ask_stateless') {
      // The two requests of an MRTR round: input-required, then the answer.
      const answer = message.params.inputResponses?.name;
      const result = answer
        ? { resultType: 'complete', content: [{ type: 'text', text: `${answer.action}:${answer.content?.name}` }] }
        : {
            resultType: 'input_required',
            inputRequests: { name: { method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: {} } } },
            requestState: 'state',
          };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      return;
    }
    if (message.params?.name === 'ask') {
      const id = nextId++;
      waiting.set(id, { res, callId: message.id });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: {} } })}\n\n`,
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: String(message.params?.arguments?.text) }] } }));
  });
});
http.listen(0, '127.0.0.1', () => serveBenchControl((http.address() as AddressInfo).port));
