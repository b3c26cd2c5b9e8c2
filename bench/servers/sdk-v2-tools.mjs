/**
 * The bench's tools on the official SDK v2 (2.4.0), written once for both eras as v2 intends: `ask`
 * returns `inputRequired(...)` and reads the answer when called again (on 2026-07-28 the client does the
 * round; on a 2025 session the SDK's shim sends a real elicitation/create).
 */
import { fromJsonSchema, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import { elicitSchema } from './shared.mjs';

const ECHO_SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const text = (value) => ({ content: [{ type: 'text', text: value }] });

/** A tool without an inputSchema is called with the context alone. */
async function ask(ctx) {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'name');
  if (answer.kind === 'missing') {
    // A fresh schema object per call, as a handler with the schema written inline makes one.
    return inputRequired({ inputRequests: { name: inputRequired.elicit({ message: 'Who are you?', requestedSchema: elicitSchema() }) } });
  }
  return text(`${answer.action}:${answer.content?.name}`);
}

export function sdkV2Server() {
  const server = new McpServer({ name: 'bench-sdk-v2', version: '2.4.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { inputSchema: fromJsonSchema(ECHO_SCHEMA) }, async ({ text: value }) => text(String(value)));
  server.registerTool('ask', {}, ask);
  server.registerTool('ask_stateless', {}, ask);
  return server;
}
