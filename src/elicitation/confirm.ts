/** A yes/no confirmation before a tool that writes: accept proceeds, anything else stops it with a typed error. */
import { ElicitationNotSupportedError, McpError, UnexpectedElicitActionError } from '../protocol/errors.js';
import type { ElicitAction, ElicitParams, ElicitResult } from '../protocol/types.js';
import type { ClientRequestOptions } from './kind.js';

/** Why a confirmation did not let the work go ahead. `code` is stable. */
export class ConfirmationError extends Error {
  override name = 'ConfirmationError';
  constructor(
    readonly code: 'USER_DECLINED' | 'USER_CANCELLED' | 'ELICITATION_FAILED',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class UserDeclinedError extends ConfirmationError {
  override name = 'UserDeclinedError';
  constructor(readonly question: string) {
    super('USER_DECLINED', `The user declined: "${question}". Nothing was done.`);
  }
}

export class UserCancelledError extends ConfirmationError {
  override name = 'UserCancelledError';
  constructor(readonly question: string) {
    super('USER_CANCELLED', `The user dismissed the confirmation "${question}" without answering. Nothing was done.`);
  }
}

/** The confirmation could not be asked or answered: timeout, cancellation, a closed session or the client's error. */
export class ElicitationFailedError extends ConfirmationError {
  override name = 'ElicitationFailedError';
  constructor(
    readonly question: string,
    cause: unknown,
  ) {
    super(
      'ELICITATION_FAILED',
      `Could not get a confirmation for "${question}": ${cause instanceof Error ? cause.message : String(cause)}. Nothing was done.`,
      { cause },
    );
  }
}

/** Anything that can ask the user: a handler's `ctx`, or a session. */
export interface Asker {
  elicit(params: ElicitParams, options?: ClientRequestOptions): Promise<ElicitResult>;
}

const YES_NO = { type: 'object', properties: {} } as const;

/**
 * Ask the user to confirm `question` (an elicitation with an empty form: accept means yes). Resolves on
 * accept; otherwise throws `UserDeclinedError`, `UserCancelledError`, `ElicitationNotSupportedError`,
 * `UnexpectedElicitActionError` or `ElicitationFailedError` (wrapping the cause).
 */
export async function confirm(asker: Asker, question: string, options: ClientRequestOptions = {}): Promise<void> {
  let action: ElicitAction;
  try {
    ({ action } = await asker.elicit({ message: question, requestedSchema: YES_NO }, options));
  } catch (err) {
    // Failures of the ask itself travel as McpErrors; anything else (a 2026-07-28 input round unwinding,
    // a programmer error) is not ours to wrap.
    if (!(err instanceof McpError) || err instanceof ElicitationNotSupportedError || err instanceof UnexpectedElicitActionError) throw err;
    throw new ElicitationFailedError(question, err);
  }
  if (action === 'decline') throw new UserDeclinedError(question);
  if (action === 'cancel') throw new UserCancelledError(question);
}
