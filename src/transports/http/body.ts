/**
 * Reading a POST body: up to `maxMessageBytes` (413 past it), or what a framework parsed already
 * (express.json() hands it over as req.body); then JSON (400 -32700 when it is not).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../protocol/errors.js';
import { sendHttpError } from './request-checks.js';

/** What a reader returns when it has answered the request itself (an error, or a client gone). */
export const NO_BODY = Symbol('no body');

class BodyTooLargeError extends Error {}

/** Read the body up to `limit` bytes; rejects with BodyTooLargeError past it. */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      reject(new BodyTooLargeError());
      req.resume();
      return;
    }
    // Most bodies come in one chunk: the array is made for a second.
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLargeError());
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      if (first === undefined) first = chunk;
      else (chunks ??= [first]).push(chunk);
    });
    req.on('end', () => resolve(chunks ? Buffer.concat(chunks).toString('utf8') : first ? first.toString('utf8') : ''));
    req.on('error', reject);
  });
}

/** The body as JSON, or NO_BODY with the error sent; `invalid` counts an unparseable one. */
export async function readJson(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, limit: number, invalid: () => void): Promise<unknown> {
  const parsed = (req as { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed === 'object' && parsed !== null && !Buffer.isBuffer(parsed)) return parsed;
  // The common case (nothing parsed before us) reads here: one async frame fewer per POST.
  let text: string | typeof NO_BODY;
  if (parsed !== undefined) text = await readText(req, res, cors, limit);
  else {
    try {
      text = await readBody(req, limit);
    } catch (err) {
      return bodyFailed(req, res, cors, limit, err);
    }
  }
  if (text === NO_BODY) return NO_BODY;
  try {
    return JSON.parse(text);
  } catch (err) {
    invalid();
    sendHttpError(res, 400, ErrorCode.ParseError, `Parse error: ${(err as Error).message}`, cors);
    return NO_BODY;
  }
}

/** The body as text (a framework's string or Buffer as it is), or NO_BODY with the error sent. */
export async function readText(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, limit: number): Promise<string | typeof NO_BODY> {
  const parsed = (req as { body?: unknown }).body;
  try {
    return typeof parsed === 'string' ? parsed : Buffer.isBuffer(parsed) ? parsed.toString('utf8') : await readBody(req, limit);
  } catch (err) {
    return bodyFailed(req, res, cors, limit, err);
  }
}

/** Reading the body failed: NO_BODY with 413 sent, NO_BODY for a client gone, or the error rethrown. */
function bodyFailed(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, limit: number, err: unknown): typeof NO_BODY {
  // The client went away (or timed out) mid-body: nobody to answer, and nothing wrong with the server.
  if (req.destroyed && !(err instanceof BodyTooLargeError)) return NO_BODY;
  if (!(err instanceof BodyTooLargeError)) throw err;
  sendHttpError(res, 413, ErrorCode.TransportRefused, `Payload Too Large: the body exceeds ${limit} bytes`, { ...cors, connection: 'close' });
  return NO_BODY;
}
