/**
 * SEP-2243 (2026-07-28): the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers must match the
 * body, and tool arguments marked `x-mcp-header` are mirrored as Mcp-Param-* headers. A header that is
 * missing, malformed or different gets -32020 (HTTP 400).
 */
import type { IncomingMessage } from 'node:http';
import { HeaderMismatchError } from '../../protocol/errors.js';
import { isObject } from '../../protocol/is-object.js';
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { HttpNeeds } from '../../server/port.js';
import { mcpName } from '../../protocol/mcp-name.js';
import { tryJson } from '../../protocol/quote.js';

const BASE64_VALUE = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** A header value, trimmed, with `=?base64?...?=` decoded (UTF-8). Undefined when absent; throws when malformed. */
function headerValue(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers[name];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw[0] : raw).trim();
  // Only a value wrapped in both =?base64? and ?= is encoded; anything else is literal (SEP-2243).
  if (!value.startsWith('=?base64?') || !value.endsWith('?=')) return value;
  const match = BASE64_VALUE.exec(value);
  if (!match || match[1].length % 4 !== 0) throw new HeaderMismatchError(`Header ${name} has a malformed =?base64?...?= value`);
  return Buffer.from(match[1], 'base64').toString('utf8');
}

function expect(req: IncomingMessage, name: string, wanted: string, what: string): void {
  const value = headerValue(req, name);
  if (value === undefined) throw new HeaderMismatchError(`Header ${name} is required: it must repeat ${what} (${JSON.stringify(wanted)})`);
  if (value !== wanted) throw new HeaderMismatchError(`Header ${name} is ${JSON.stringify(value)} but ${what} is ${JSON.stringify(wanted)}`);
}

/** Throws HeaderMismatchError unless the headers agree with the request body. */
export function checkModernHeaders(needs: HttpNeeds, req: IncomingMessage, request: JsonRpcRequest, claimedVersion: string): void {
  expect(req, 'mcp-protocol-version', claimedVersion, 'the _meta protocolVersion');
  expect(req, 'mcp-method', request.method, 'the method');
  const params = request.params ?? {};
  const named = mcpName(request.method, params);
  if (named) expect(req, 'mcp-name', named.value, `params.${named.param}`);
  if (request.method === 'tools/call' && typeof params.name === 'string') checkParamHeaders(needs, req, params.name, params.arguments);
}

function checkParamHeaders(needs: HttpNeeds, req: IncomingMessage, tool: string, args: unknown): void {
  const mirrored = needs.toolHeaderParams(tool);
  if (!mirrored) return;
  const values = isObject(args) ? args : {};
  for (const [property, headerName] of mirrored) {
    const name = `mcp-param-${headerName.toLowerCase()}`;
    const value = values[property];
    if (value === undefined || value === null) {
      if (headerValue(req, name) !== undefined) throw new HeaderMismatchError(`Header Mcp-Param-${headerName} is set but argument ${property} is absent`);
      continue;
    }
    const wanted = typeof value === 'string' ? value : tryJson(value);
    if (wanted === undefined) throw new HeaderMismatchError(`Argument ${property} cannot be mirrored in header Mcp-Param-${headerName}: it has no JSON form`);
    expect(req, name, wanted, `argument ${property}`);
  }
}
