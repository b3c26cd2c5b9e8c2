/**
 * `subscriptions/listen` (2026-07-28): the stream that replaces the GET stream and resources/subscribe.
 * The acknowledgement comes first, every notification names its subscription, and only what the
 * client asked for (and the server honours) is sent.
 */
import { isObject } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type { RequestContext } from './api.js';

export interface SubscriptionFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  /** Extensions' keys (`ServerExtension.listenFilters`), as they honour them. */
  [extensionKey: string]: unknown;
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

export function honoured(requested: unknown): SubscriptionFilter {
  const wanted = isObject(requested) ? requested : {};
  const filter: SubscriptionFilter = {};
  if (wanted.toolsListChanged === true) filter.toolsListChanged = true;
  if (wanted.promptsListChanged === true) filter.promptsListChanged = true;
  if (wanted.resourcesListChanged === true) filter.resourcesListChanged = true;
  if (Array.isArray(wanted.resourceSubscriptions))
    filter.resourceSubscriptions = wanted.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
  return filter;
}
