/**
 * `subscriptions/listen` (2026-07-28): the stream that replaces the GET stream and resources/subscribe.
 * The acknowledgement comes first, every notification names its subscription, and only what the
 * client asked for (and the server honours) is sent.
 */
import { isObject } from '../protocol/is-object.js';
import { META } from '../protocol/meta.js';
import type { RequestContext } from './context.js';
import type { McpServer } from './mcp-server.js';
import type { McpSession } from './session.js';

export interface SubscriptionFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

export class Subscription {
  private finish!: () => void;
  readonly ended = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    readonly ctx: RequestContext,
    readonly filter: SubscriptionFilter,
  ) {}

  get id() {
    return this.ctx.requestId;
  }

  /** Send a notification on this subscription's stream, tagged with its id. */
  notify(method: string, params: Record<string, unknown> = {}): void {
    this.ctx.notify(method, { ...params, _meta: { [META.subscriptionId]: this.id } });
  }

  /** End it from the server side: the listen request completes. */
  end(): void {
    this.finish();
  }
}

function honoured(requested: unknown): SubscriptionFilter {
  const wanted = isObject(requested) ? requested : {};
  const filter: SubscriptionFilter = {};
  if (wanted.toolsListChanged === true) filter.toolsListChanged = true;
  if (wanted.promptsListChanged === true) filter.promptsListChanged = true;
  if (wanted.resourcesListChanged === true) filter.resourcesListChanged = true;
  if (Array.isArray(wanted.resourceSubscriptions))
    filter.resourceSubscriptions = wanted.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
  return filter;
}

export async function listen(server: McpServer, _session: McpSession, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
  const subscription = new Subscription(ctx, honoured(params.notifications));
  // subscriptions.mdx: the first message of a subscription MUST be the acknowledgement.
  subscription.notify('notifications/subscriptions/acknowledged', { notifications: subscription.filter });
  server.subscriptions.add(subscription);
  try {
    await new Promise<void>((resolve) => {
      subscription.ended.then(resolve);
      // The client may have left before the handler ran (an await in auth): then it ends at once.
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    server.subscriptions.delete(subscription);
  }
  return { _meta: { [META.subscriptionId]: subscription.id } };
}
