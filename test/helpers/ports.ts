/** Loopback ports for tests: one nothing listens on, and a test server's own. */
import type { Server } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';

/** A loopback port nothing listens on: free a moment ago (the OS picked it, and the probe let it go). */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Listen on 127.0.0.1 with a server of the test's own, on a port the OS picks; `cleanups` closes it, connections and all. */
export async function listenOnLoopback(cleanups: { push(cleanup: () => unknown): void }, http: Server): Promise<number> {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  );
  return (http.address() as AddressInfo).port;
}
