/** A yes/no confirmation before a tool that writes: accept proceeds, anything else stops it with a typed error. */
import { ElicitationNotSupportedError, ErrorCode, McpError } from '../protocol/errors.js';
import type { ElicitAction } from '../protocol/types.js';
import type { ClientRequestOptions } from '../server/client-requests.js';
import type { RequestContext } from '../server/context.js';
import { InputRequiredSignal } from '../mrtr/input-required.js';

/** Why a confirmation did not let the work go ahead. `code` is stable. */
export class ConfirmationError extends Error {
  override name = 'ConfirmationError';
  constructor(
    readonly code: 'USER_DECLINED' | 'USER_CANCELED' | 'ELICITATION_FAILED',
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

export class UserCanceledError extends ConfirmationError {
  override name = 'UserCanceledError';
  constructor(readonly question: string) {
    super('USER_CANCELED', `The user dismissed the confirmation "${question}" without answering. Nothing was done.`);
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

/** The client answered with an action other than accept, decline or cancel. */
export class UnexpectedElicitActionError extends McpError {
  override name = 'UnexpectedElicitActionError';
  constructor(readonly action: unknown) {
    super(ErrorCode.InvalidParams, `The client answered elicitation/create with action ${JSON.stringify(action)}; expected accept, decline or cancel`, {
      action,
    });
  }
}

const YES_NO = { type: 'object', properties: {} } as const;

/**
 * Ask the user to confirm `question` (an elicitation with an empty form: accept means yes). Resolves on
 * accept; otherwise throws `UserDeclinedError`, `UserCanceledError`, `ElicitationNotSupportedError` or
 * `ElicitationFailedError` (wrapping the cause).
 */
export async function confirm(ctx: RequestContext, question: string, options: ClientRequestOptions = {}): Promise<void> {
  let action: ElicitAction;
  try {
    ({ action } = await ctx.elicit({ message: question, requestedSchema: YES_NO }, options));
  } catch (err) {
    if (err instanceof ElicitationNotSupportedError || err instanceof UnexpectedElicitActionError || err instanceof InputRequiredSignal) throw err;
    throw new ElicitationFailedError(question, err);
  }
  if (action === 'decline') throw new UserDeclinedError(question);
  if (action === 'cancel') throw new UserCanceledError(question);
}
