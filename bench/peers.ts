/** The servers the bench measures: the floor, Switchboard, and its peers, each in the cases it supports. */
import type { CaseId, Endpoint } from './cases.js';

export type Role = 'bare' | 'switchboard' | 'before' | 'sdk-v1' | 'sdk-v2' | 'sdk-v2-stateless' | 'fastmcp' | 'otel' | 'otel-sdk';

export interface ServerSpec {
  role: Role;
  name: string;
  entry: string;
  env?: Record<string, string>;
  /** The cases it serves, with the endpoint details that differ from POST /mcp. */
  cases: Partial<Record<CaseId, Partial<Endpoint>>>;
}

/** Report columns, in order. */
export const ROLES: readonly Role[] = ['bare', 'switchboard', 'before', 'sdk-v1', 'sdk-v2', 'sdk-v2-stateless', 'fastmcp', 'otel', 'otel-sdk'];

/** Variants that run only when `--server` names them (`before` only with `--before DIR`). */
export const ON_REQUEST: readonly Role[] = ['otel', 'otel-sdk', 'before'];

// The zod variants only Switchboard serves: they are compared with its own JSON Schema echo, not with bare.
const SWITCHBOARD_CASES: ServerSpec['cases'] = {
  'http-echo': {},
  'http-echo-zod': {},
  'stateless-echo': {},
  'http-elicit': {},
  'mrtr-round': {},
  'ws-echo': {},
  'ws-echo-zod': {},
  'ws-elicit': {},
  'session-churn': {},
};
/** The 2025-11-25 session cases every HTTP peer with sessions serves. */
const SESSION_CASES: ServerSpec['cases'] = { 'http-echo': {}, 'http-elicit': {}, 'session-churn': {} };
// Peers without 2026-07-28 get the stateless case as sessionless 2025-11-25 calls.
const LEGACY_STATELESS = { legacy: true };

/** Every server; `switchboard` and `before` load the package from the directory given (SWITCHBOARD_DIR). */
export function serverSpecs(switchboardDir: string, beforeDir: string | undefined): ServerSpec[] {
  const switchboard = (role: Role, name: string, entry: string, dir: string): ServerSpec => ({
    role,
    name,
    entry,
    env: { SWITCHBOARD_DIR: dir },
    cases: SWITCHBOARD_CASES,
  });
  return [
    {
      role: 'bare',
      name: 'bare node:http',
      entry: 'bare-http.mjs',
      cases: { 'http-echo': {}, 'stateless-echo': {}, 'http-elicit': {}, 'mrtr-round': {}, 'session-churn': {} },
    },
    { role: 'bare', name: 'bare ws', entry: 'bare-ws.mjs', cases: { 'ws-echo': {}, 'ws-elicit': {} } },
    switchboard('switchboard', 'Switchboard', 'switchboard.mjs', switchboardDir),
    ...(beforeDir ? [switchboard('before', 'Switchboard before', 'switchboard.mjs', beforeDir)] : []),
    switchboard('otel', 'SB otel no-op', 'switchboard-otel.mjs', switchboardDir),
    switchboard('otel-sdk', 'SB otel SDK', 'switchboard-otel-sdk.mjs', switchboardDir),
    { role: 'sdk-v1', name: 'SDK v1 1.32.2', entry: 'sdk-v1.mjs', cases: { ...SESSION_CASES, 'stateless-echo': { path: '/stateless', ...LEGACY_STATELESS } } },
    { role: 'sdk-v2', name: 'SDK v2 2.4.0', entry: 'sdk-v2.mjs', cases: SESSION_CASES },
    { role: 'sdk-v2-stateless', name: 'SDK v2 stateless', entry: 'sdk-v2-stateless.mjs', cases: { 'stateless-echo': {}, 'mrtr-round': {} } },
    // fastmcp sends a tool's elicitation/create on the session's GET stream, so its clients keep one open.
    { role: 'fastmcp', name: 'fastmcp 4.20.16', entry: 'fastmcp.mjs', cases: { ...SESSION_CASES, 'http-elicit': { getStream: true } } },
    {
      role: 'fastmcp',
      name: 'fastmcp stateless',
      entry: 'fastmcp.mjs',
      env: { FASTMCP_STATELESS: '1' },
      cases: { 'stateless-echo': LEGACY_STATELESS },
    },
  ];
}
