/** What the process manager reports: load per server process and for the machine they share. */
import os from 'node:os';
import type { ProcessLoad, ProcessState } from './directory.js';

export interface ProcessReport {
  processId: string;
  pid: number;
  state: ProcessState;
  /** Heard from, and not being killed for silence. */
  healthy: boolean;
  /** Unix milliseconds of its fork and of its last heartbeat (0 before the first). */
  startedAt: number;
  heartbeatAt: number;
  /** Restarts of its place so far (each run has its own process id). */
  restarts: number;
  /** Rooms, clients and tick times as its last heartbeat said. */
  load: ProcessLoad;
  rssBytes: number;
  /** Percent of one core over its last heartbeat period. */
  cpuPercent: number;
}

export interface MachineReport {
  hostname: string;
  /** Logical cores. */
  cpus: number;
  /** 1, 5 and 15 minute load averages (zeros on Windows). */
  loadavg: [number, number, number];
  freeMemoryBytes: number;
  totalMemoryBytes: number;
  /** Sums over the running children. */
  processes: number;
  rooms: number;
  clients: number;
  rssBytes: number;
  cpuPercent: number;
  /** The worst tick any child reported in its last period, milliseconds. */
  tickMaxMs: number;
  /** Children killed for silence since the manager started. */
  unhealthyKills: number;
}

export interface ProcessManagerReport {
  machine: MachineReport;
  processes: ProcessReport[];
}

export function machineReport(processes: readonly ProcessReport[], unhealthyKills: number): MachineReport {
  const [one, five, fifteen] = os.loadavg();
  const report: MachineReport = {
    hostname: os.hostname(),
    cpus: os.availableParallelism(),
    loadavg: [one, five, fifteen],
    freeMemoryBytes: os.freemem(),
    totalMemoryBytes: os.totalmem(),
    processes: processes.length,
    rooms: 0,
    clients: 0,
    rssBytes: 0,
    cpuPercent: 0,
    tickMaxMs: 0,
    unhealthyKills,
  };
  for (const p of processes) {
    report.rooms += p.load.rooms;
    report.clients += p.load.clients;
    report.rssBytes += p.rssBytes;
    report.cpuPercent += p.cpuPercent;
    report.tickMaxMs = Math.max(report.tickMaxMs, p.load.tickMaxMs);
  }
  return report;
}
