/**
 * What a 2026-07-28 request's `Mcp-Name` header repeats from its body (SEP-2243): a tool's or prompt's
 * name, a resource's URI, and (the Tasks extension, SEP-2663) the task id of `tasks/get`, `tasks/update`
 * and `tasks/cancel`. Other methods carry no `Mcp-Name`.
 */
const NAMED_BY: Readonly<Record<string, string>> = {
  __proto__: null as unknown as string,
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The param `Mcp-Name` repeats for `method`, and its value, when the request has one. */
export function mcpName(method: string, params: Record<string, unknown>): { param: string; value: string } | undefined {
  const param = NAMED_BY[method];
  if (param === undefined) return undefined;
  const value = params[param];
  return typeof value === 'string' ? { param, value } : undefined;
}
