/** Where the client runs: under Node it loads node:http and ws (by import(), so a browser bundle never does). */
export function isNode(): boolean {
  return typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';
}
