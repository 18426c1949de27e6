/**
 * What the process manager and its server processes say to each other over the IPC channel. Every
 * message carries a `gw` tag so a game's own IPC messages pass by untouched. A child's messages are
 * checked before use: a broken server must not break the manager.
 */
import type { ProcessLoad, ProcessState } from './directory.js';

/** The environment variable naming the child's process id (its directory id). */
export const PROCESS_ID_ENV = 'GHOSTWIRE_PROCESS_ID';
/** The environment variable giving the heartbeat period the manager expects, milliseconds. */
export const HEARTBEAT_MS_ENV = 'GHOSTWIRE_HEARTBEAT_MS';

/** Child → manager, every heartbeat period. */
export interface HeartbeatMessage {
  gw: 'heartbeat';
  state: ProcessState;
  load: ProcessLoad;
  /** Resident set size, bytes. */
  rssBytes: number;
  /** CPU time over wall time since the previous heartbeat, percent of one core. */
  cpuPercent: number;
}

/** Child → manager: its drain hook finished (ok) or failed (the manager stops it either way). */
export interface DrainedMessage {
  gw: 'drained';
  ok: boolean;
}

/** Manager → child: stop taking rooms and let those running end. */
export interface DrainRequest {
  gw: 'drain';
}

const STATES = new Set(['starting', 'ready', 'draining']);

function count(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** The heartbeat in a message from a child, or null when it is not a well-formed one. */
export function parseHeartbeat(message: unknown): HeartbeatMessage | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as Record<string, unknown>;
  if (m.gw !== 'heartbeat' || typeof m.state !== 'string' || !STATES.has(m.state)) return null;
  if (!count(m.rssBytes) || !count(m.cpuPercent)) return null;
  const load = m.load as Record<string, unknown> | null;
  if (typeof load !== 'object' || load === null) return null;
  if (!count(load.rooms) || !count(load.clients) || !count(load.tickMs) || !count(load.tickMaxMs))
    return null;
  return {
    gw: 'heartbeat',
    state: m.state as ProcessState,
    load: { rooms: load.rooms, clients: load.clients, tickMs: load.tickMs, tickMaxMs: load.tickMaxMs },
    rssBytes: m.rssBytes,
    cpuPercent: m.cpuPercent,
  };
}

/** The tag of a manager message, or null for anything else (a game's own messages). */
export function managerTag(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return null;
  const tag = (message as { gw?: unknown }).gw;
  return typeof tag === 'string' ? tag : null;
}
