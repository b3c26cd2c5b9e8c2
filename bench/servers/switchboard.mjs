/** Switchboard from its build, Streamable HTTP and WebSocket on one port, with the benchmarked tools. */
import { serveSwitchboard } from './switchboard-app.mjs';

await serveSwitchboard();
