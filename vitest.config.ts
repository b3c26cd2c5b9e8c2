import { defineConfig } from 'vitest/config';

const nodeMajor = Number(process.versions.node.split('.')[0]);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 15_000,
    hookTimeout: 15_000,
    pool: 'forks',
    // The official SDK's WebSocket client needs a global WebSocket, which Node 20 has only behind this flag.
    execArgv: nodeMajor < 22 ? ['--experimental-websocket'] : [],
  },
});
