/**
 * Several instances behind one address: a legacy-era session lives on the instance that answered its
 * `initialize` (its owner), and a request for it that reaches another instance is forwarded to the
 * owner over HTTP, streams and all. The router (shared through Redis by `src/scale/`) says who owns what.
 */
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ErrorCode } from '../../protocol/errors.js';
import { sendHttpError } from './request.js';

/** Who holds which session, shared by the instances serving one endpoint. */
export interface SessionRouter {
  /** This instance now holds `sessionId`, reachable at `ownerUrl` (its MCP endpoint). Called again on activity, to keep it. */
  claim(sessionId: string, ownerUrl: string): void | Promise<void>;
  /** The session ended on its owner. */
  release(sessionId: string, ownerUrl: string): void | Promise<void>;
  /** The MCP endpoint of the instance holding `sessionId`, or undefined when none does. */
  locate(sessionId: string): Promise<string | undefined>;
}

/** Marks a forwarded request: its owner answers it itself, and never forwards it again. */
export const FORWARDED_HEADER = 'x-switchboard-forwarded';

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
/** How long the owner has to accept a forwarded connection. */
const CONNECT_TIMEOUT_MS = 2000;

/**
 * Forward `req` to the owner at `ownerUrl` and stream its answer back. Resolves false, having sent
 * nothing, when the owner cannot be reached (it is gone: the session is lost).
 */
export function forward(req: IncomingMessage, res: ServerResponse, ownerUrl: string): Promise<boolean> {
  const target = new URL(ownerUrl);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  headers.host = target.host;
  headers[FORWARDED_HEADER] = '1';
  // A framework may have read the body already (express.json()): send what it parsed.
  const parsed = (req as { body?: unknown }).body;
  const body = parsed === undefined ? undefined : typeof parsed === 'string' || Buffer.isBuffer(parsed) ? parsed : JSON.stringify(parsed);
  if (body !== undefined) {
    headers['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const upstream = send(target, { method: req.method, headers });
    const timer = setTimeout(() => upstream.destroy(new Error('the owner did not answer in time')), CONNECT_TIMEOUT_MS);
    // A kept-alive socket is connected already; a new one has until the timer to connect.
    upstream.once('socket', (socket) => {
      if (!socket.connecting) clearTimeout(timer);
      else socket.once('connect', () => clearTimeout(timer));
    });
    upstream.on('response', (answer) => {
      clearTimeout(timer);
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('error', () => res.destroy());
      resolve(true);
    });
    upstream.on('error', () => {
      clearTimeout(timer);
      if (res.headersSent) res.destroy();
      resolve(res.headersSent);
    });
    // The client went away: so does the forwarded request (closing a stream on the owner, as locally). A
    // response that went out whole leaves the connection to the owner open for the next one.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (body !== undefined) upstream.end(body);
    else req.pipe(upstream);
  });
}

/** 503 while the router cannot be asked: the session may well exist elsewhere, so not 404. */
export function routerUnavailable(res: ServerResponse, cors: Record<string, string>, err: unknown): void {
  sendHttpError(
    res,
    503,
    ErrorCode.TransportRefused,
    `Service Unavailable: cannot find which instance holds this session (${(err as Error).message}); retry shortly`,
    { ...cors, 'retry-after': '1' },
  );
}
