/** The Tasks extension's wire shapes (`io.modelcontextprotocol/tasks`, SEP-2663, 2026-07-28). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task's operational metadata, as `CreateTaskResult` (with `resultType: "task"`) carries it. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** From creation, in integer milliseconds; null for unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** A task with what its status inlines, as `tasks/get` and `notifications/tasks` carry it. */
export interface DetailedTask extends Task {
  /** `input_required`: the outstanding server-to-client requests, by key (unique over the task's lifetime). */
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  /** `completed`: the result of the original request (a `CallToolResult`, `isError` included). */
  result?: Record<string, unknown>;
  /** `failed`: the JSON-RPC error the request ended with. */
  error?: { code: number; message: string; data?: unknown };
}

export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
