/** `sampling/createMessage` (client/sampling.mdx): gated on the client's `sampling` (and `sampling.tools`) capability. */
import { ErrorCode, McpError, SamplingNotSupportedError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { CreateMessageParams, CreateMessageResult } from '../protocol/types.js';
import type { ClientRequestKind } from './kind.js';

export const samplingKind: ClientRequestKind<CreateMessageParams, CreateMessageResult> = {
  method: 'sampling/createMessage',
  event: 'responseSamplingCreateMessage',
  fields: ['role', 'content', 'model', 'stopReason'],
  prepare(_ctx, capabilities, params) {
    const declared = capabilities.sampling;
    if (!isObject(declared)) throw new SamplingNotSupportedError();
    if ((params?.tools !== undefined || params?.toolChoice !== undefined) && !isObject(declared.tools)) {
      throw new SamplingNotSupportedError('sampling.tools');
    }
    if (!Array.isArray(params?.messages)) throw new TypeError('sampling/createMessage needs params.messages, an array of {role, content}');
    if (!Number.isInteger(params.maxTokens) || params.maxTokens <= 0) throw new TypeError('sampling/createMessage needs params.maxTokens, a positive integer');
    return params;
  },
  timeoutMs: (options) => options.samplingTimeoutMs,
  interpret(_ctx, result) {
    const { role, content, model } = result;
    if ((role !== 'user' && role !== 'assistant') || !(isObject(content) || Array.isArray(content)) || typeof model !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'The client answered sampling/createMessage without a valid role, content and model', { result });
    }
    return result as CreateMessageResult;
  },
};
