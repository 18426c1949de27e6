/**
 * CPU and kernel counters the process-level bench suites (`messages`, `serverload`) read around
 * their measurement window, in this process and in the child (which reports {@link cpuSample}
 * in its `mark` replies).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';

export const cores = os.cpus().length;

/** This process's CPU time so far (user and system, all threads), microseconds. */
export interface CpuSample {
  cpuUser: number;
  cpuSystem: number;
}

export function cpuSample(): CpuSample {
  const cpu = process.cpuUsage();
  return { cpuUser: cpu.user, cpuSystem: cpu.system };
}

/** CPU time between two samples as a percentage of one core over `wallSeconds`. */
export function cpuPercent(before: CpuSample, after: CpuSample, wallSeconds: number): number {
  return ((after.cpuUser + after.cpuSystem - before.cpuUser - before.cpuSystem) / 1e6 / wallSeconds) * 100;
}

export interface MachineCpu {
  busy: number;
  total: number;
  steal: number;
}

/** Whole-machine CPU time from /proc/stat (Linux), in clock ticks, or null elsewhere. */
export function machineCpu(): MachineCpu | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - fields[3] - fields[4], total, steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/**
 * All CPUs together between two readings, in % of one core (the box may be shared: above what
 * the bench's processes use is other load); null when either reading is.
 */
export function machineCpuPercent(
  before: MachineCpu | null,
  after: MachineCpu | null,
): { busyPercent: number; stealPercent: number } | null {
  if (before === null || after === null) return null;
  return {
    busyPercent: ((after.busy - before.busy) / (after.total - before.total)) * 100 * cores,
    stealPercent: ((after.steal - before.steal) / (after.total - before.total)) * 100 * cores,
  };
}

const UDP_ERROR_COUNTERS = ['InErrors', 'RcvbufErrors', 'SndbufErrors'] as const;

/** System-wide UDP error counters from /proc/net/snmp (Linux), or null elsewhere. */
export function kernelUdpErrors(): Record<string, number> | null {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('Udp:'));
    const names = lines[0].split(/\s+/).slice(1);
    const values = lines[1].split(/\s+/).slice(1).map(Number);
    const all = Object.fromEntries(names.map((n, i) => [n, values[i]]));
    return Object.fromEntries(UDP_ERROR_COUNTERS.map((k) => [k, all[k] ?? 0]));
  } catch {
    return null;
  }
}

/** The change in each counter between two {@link kernelUdpErrors} readings; null when either is. */
export function kernelUdpErrorsSince(
  before: Record<string, number> | null,
  after: Record<string, number> | null,
): Record<string, number> | null {
  if (before === null || after === null) return null;
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
}
