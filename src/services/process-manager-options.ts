/** The process manager's options, their defaults, and the checks that refuse bad ones at the call. */
import type { Directory } from './directory.js';

export interface ProcessManagerOptions {
  /** The server module each child runs (a .js path), which calls reportToManager. */
  modulePath: string;
  args?: string[];
  /** Added to this process's environment for each child. */
  env?: Record<string, string>;
  /** Node options for the children (default none). */
  execArgv?: string[];
  /** Children run at most at once. */
  maxProcesses: number;
  /**
   * The directory the children share: served to them over IPC (IpcDirectory), and a child's entry
   * is removed from it when the child ends.
   */
  directory?: Directory;
  /** How often a child heartbeats, milliseconds (default 500). */
  heartbeatIntervalMs?: number;
  /** A child silent this long is killed and counted unhealthy (default 3000). */
  heartbeatTimeoutMs?: number;
  /** Time a new child has to send its first heartbeat (default 10000). */
  startupTimeoutMs?: number;
  /** How long drain waits for a child's rooms to end before stopping it anyway (default 30000). */
  drainTimeoutMs?: number;
  /** After SIGTERM, how long before SIGKILL (default 5000). */
  killGraceMs?: number;
  /** Delay before the first restart; each further one in a row doubles it (default 250). */
  restartDelayMs?: number;
  /** The longest restart delay (default 10000). */
  maxRestartDelayMs?: number;
  /** Restarts in a row after short runs before giving up (default 5). */
  crashLoopLimit?: number;
  /** A run at least this long is not part of a crash loop: the count starts again (default 30000). */
  stableRunMs?: number;
  /** The children's stdout and stderr: this process's own (default) or discarded. */
  stdio?: 'inherit' | 'ignore';
}

export interface ResolvedManagerOptions extends Required<Omit<ProcessManagerOptions, 'directory'>> {
  /** How often silence is checked: a fraction of the timeout, so a kill is at most that late. */
  checkIntervalMs: number;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`${name} must be a positive finite number, got ${value}`);
  return value;
}

export function checkManagerOptions(options: ProcessManagerOptions): ResolvedManagerOptions {
  if (typeof options.modulePath !== 'string' || options.modulePath === '')
    throw new TypeError('modulePath must name the server module');
  if (!Number.isInteger(options.maxProcesses) || options.maxProcesses < 1)
    throw new RangeError(`maxProcesses must be a positive integer, got ${options.maxProcesses}`);
  const heartbeatIntervalMs = positive('heartbeatIntervalMs', options.heartbeatIntervalMs ?? 500);
  const heartbeatTimeoutMs = positive('heartbeatTimeoutMs', options.heartbeatTimeoutMs ?? 3000);
  if (heartbeatTimeoutMs <= heartbeatIntervalMs)
    throw new RangeError(
      `heartbeatTimeoutMs (${heartbeatTimeoutMs}) must exceed heartbeatIntervalMs (${heartbeatIntervalMs})`,
    );
  const restartDelayMs = positive('restartDelayMs', options.restartDelayMs ?? 250);
  const maxRestartDelayMs = positive('maxRestartDelayMs', options.maxRestartDelayMs ?? 10_000);
  if (maxRestartDelayMs < restartDelayMs)
    throw new RangeError(
      `maxRestartDelayMs (${maxRestartDelayMs}) is below restartDelayMs (${restartDelayMs})`,
    );
  const crashLoopLimit = options.crashLoopLimit ?? 5;
  if (!Number.isInteger(crashLoopLimit) || crashLoopLimit < 0)
    throw new RangeError(`crashLoopLimit must be an integer >= 0, got ${crashLoopLimit}`);
  const stdio = options.stdio ?? 'inherit';
  if (stdio !== 'inherit' && stdio !== 'ignore')
    throw new RangeError(`stdio must be 'inherit' or 'ignore', got ${String(stdio)}`);
  return {
    modulePath: options.modulePath,
    args: [...(options.args ?? [])],
    env: { ...options.env },
    execArgv: [...(options.execArgv ?? [])],
    maxProcesses: options.maxProcesses,
    heartbeatIntervalMs,
    heartbeatTimeoutMs,
    startupTimeoutMs: positive('startupTimeoutMs', options.startupTimeoutMs ?? 10_000),
    drainTimeoutMs: positive('drainTimeoutMs', options.drainTimeoutMs ?? 30_000),
    killGraceMs: positive('killGraceMs', options.killGraceMs ?? 5000),
    restartDelayMs,
    maxRestartDelayMs,
    crashLoopLimit,
    stableRunMs: positive('stableRunMs', options.stableRunMs ?? 30_000),
    stdio,
    checkIntervalMs: Math.max(10, Math.min(heartbeatTimeoutMs / 4, 500)),
  };
}
