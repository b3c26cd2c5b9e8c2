/** Why a transport closed a connection whose client does not read what it is sent (more than `maxQueued` bytes waited for it). */
export function notReading(maxQueued: number): string {
  return `the client does not read what it is sent (over ${maxQueued} bytes queued)`;
}
