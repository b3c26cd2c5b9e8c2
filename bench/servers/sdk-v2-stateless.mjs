/**
 * The official SDK v2 (2.4.0) stateless: `createMcpHandler` (a fresh server per request; 2026-07-28, and
 * 2025-11-25 served sessionless) behind `toNodeHandler` from its Node adapter.
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { sdkV2Server } from './sdk-v2-tools.mjs';
import { serveBenchControl } from './shared.mjs';

const handle = toNodeHandler(createMcpHandler(() => sdkV2Server()));
const http = createServer((req, res) => void handle(req, res));
http.listen(0, '127.0.0.1', () => serveBenchControl(http.address().port));
