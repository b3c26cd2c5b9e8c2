/** The path of the Switchboard entry module in `dir` (default SWITCHBOARD_DIR, else this checkout's dist/). */
export function switchboardEntry(dir?: string): string;
export function importSwitchboard(): Promise<typeof import('switchboard-mcp')>;
