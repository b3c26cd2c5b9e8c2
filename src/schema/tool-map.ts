/** Tools as a client sees them, by name: what a typed `McpClient` checks its calls against. */

/** One tool: what it takes (as a client sends it) and what its `structuredContent` is. */
export interface ToolTypes<Args = Record<string, unknown>, Structured = unknown> {
  args: Args;
  structured: Structured;
}

/** Tool types by name (`ToolsOf<...>` makes one from a server's registrations). */
export type ToolMap = Record<string, ToolTypes>;

/** The tool map of a client given none: any name, any arguments, `structuredContent` as plain data. */
export type UntypedTools = Record<string, ToolTypes<Record<string, unknown>, Record<string, unknown>>>;
