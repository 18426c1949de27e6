/**
 * The server process's side of the process manager: heartbeats carrying its load over the IPC
 * channel, the drain request answered, and a clean exit when the manager stops it (SIGTERM) or goes
 * away (the channel closes: a server outliving its manager would hold ports nobody watches).
 */
import type { ProcessLoad, ProcessState } from './directory.js';
import { type IpcEndpoint, ignoreSendError, parentEndpoint } from './ipc-endpoint.js';
import {
  type DrainedMessage,
  HEARTBEAT_MS_ENV,
  type HeartbeatMessage,
  managerTag,
  PROCESS_ID_ENV,
} from './manager-protocol.js';

/** What the game's server process tells the manager, and how it drains. */
export interface ManagedServer {
  load(): ProcessLoad;
  /** Its lifecycle state; once asked to drain it is reported as 'draining' whatever this says. */
  state(): ProcessState;
  /** Stops taking rooms and resolves once the running ones have ended. */
  drain(): Promise<void>;
  /** Closes sockets and the like before the process exits when stopped (optional). */
  stop?(): Promise<void>;
}

export interface ManagedProcess {
  /** The id the manager gave this process: its id in the directory. */
  readonly processId: string;
  /** Stops heartbeating and listening: the manager then sees this process as silent. */
  close(): void;
}

const DEFAULT_HEARTBEAT_MS = 500;

/**
 * Starts reporting to the manager that forked this process; null when it was not (no IPC channel
 * or no process id in the environment), so a server runs the same with or without a manager.
 */
export function reportToManager(server: ManagedServer): ManagedProcess | null {
  const endpoint = parentEndpoint();
  const processId = process.env[PROCESS_ID_ENV];
  if (endpoint === null || processId === undefined || processId === '') return null;
  return new Reporter(endpoint, processId, server, heartbeatMs());
}

function heartbeatMs(): number {
  const value = Number(process.env[HEARTBEAT_MS_ENV]);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_HEARTBEAT_MS;
}

class Reporter implements ManagedProcess {
  private readonly timer: NodeJS.Timeout;
  private readonly removers: (() => void)[] = [];
  private draining = false;
  private closed = false;
  private lastCpu = process.cpuUsage();
  private lastWallMs = performance.now();
  private readonly onTerm = () => void this.exit();

  constructor(
    private readonly endpoint: IpcEndpoint,
    readonly processId: string,
    private readonly server: ManagedServer,
    intervalMs: number,
  ) {
    this.removers.push(endpoint.onMessage((message) => this.onMessage(message)));
    this.removers.push(endpoint.onDisconnect(() => void this.exit()));
    process.once('SIGTERM', this.onTerm);
    this.timer = setInterval(() => this.beat(), intervalMs);
    // The first beat at once: the manager counts the process healthy from it.
    this.beat();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const remove of this.removers) remove();
    process.off('SIGTERM', this.onTerm);
  }

  private beat(): void {
    let load: ProcessLoad;
    let state: ProcessState;
    try {
      load = this.server.load();
      state = this.draining ? 'draining' : this.server.state();
    } catch {
      return; // No beat: a server that cannot say its load is not healthy, and the manager will see it.
    }
    const cpu = process.cpuUsage(this.lastCpu);
    const wallMs = performance.now();
    const elapsedMs = Math.max(wallMs - this.lastWallMs, 1e-3);
    this.lastCpu = process.cpuUsage();
    this.lastWallMs = wallMs;
    const message: HeartbeatMessage = {
      gw: 'heartbeat',
      state,
      load,
      rssBytes: process.memoryUsage.rss(),
      cpuPercent: ((cpu.user + cpu.system) / 1000 / elapsedMs) * 100,
    };
    this.endpoint.send(message, ignoreSendError);
  }

  private onMessage(message: unknown): void {
    if (managerTag(message) !== 'drain' || this.draining || this.closed) return;
    this.draining = true;
    this.beat();
    Promise.resolve()
      .then(() => this.server.drain())
      .then(
        () => this.sendDrained(true),
        () => this.sendDrained(false),
      );
  }

  private sendDrained(ok: boolean): void {
    if (this.closed) return;
    this.beat();
    this.endpoint.send({ gw: 'drained', ok } satisfies DrainedMessage, ignoreSendError);
  }

  private async exit(): Promise<void> {
    if (this.closed) return;
    this.close();
    let code = 0;
    try {
      await this.server.stop?.();
    } catch {
      code = 1;
    }
    process.exit(code);
  }
}
