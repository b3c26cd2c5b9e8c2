/**
 * Switchboard with the telemetry option on the bare OpenTelemetry API and no SDK: what the option costs
 * an application that passes it but registers nothing (every span is the API's no-op span).
 */
import * as otel from '@opentelemetry/api';
import { serveSwitchboard } from './switchboard-app.mjs';

await serveSwitchboard({ telemetry: { api: otel } });
