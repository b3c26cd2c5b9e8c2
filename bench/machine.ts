/** What the figures were measured on: they mean little without it. */
import { cpus, loadavg } from 'node:os';

export interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  /** The 1-minute load average when the run began: above ~0.5 on two cores, other work shares the machine. */
  loadAverage: number;
}

export function machine(): Machine {
  const all = cpus();
  return { cpuModel: all[0]?.model.trim() ?? 'unknown', cores: all.length, node: process.version, loadAverage: loadavg()[0] };
}

export const describeMachine = (m: Machine) => `${m.cpuModel}, ${m.cores} cores, Node ${m.node}, load average ${m.loadAverage.toFixed(2)} at the start`;
