/**
 * What the Colyseus capacity run's processes say to each other over IPC: the runner
 * (colyseus.ts) forks one server (colyseus-server.ts) and several bot processes
 * (colyseus-bots.ts), marks the start of the steady window, then asks each for its report.
 */

export interface ServerConfig {
  port: number;
  seed: number;
  /** Bots send checksums and the rooms compare them (see colyseus-room.ts). */
  verify: boolean;
  /** Encoder.BUFFER_SIZE in bytes; 0 keeps @colyseus/schema's default. */
  encoderBufferBytes: number;
}

export interface BotsConfig {
  port: number;
  firstBot: number;
  bots: number;
  /** Joins spread evenly over this many seconds. */
  rampSeconds: number;
  seed: number;
  verify: boolean;
}

/** Parent → child. */
export type Command = { type: 'mark' } | { type: 'report' } | { type: 'stop' };

export interface ServerProgress {
  type: 'progress';
  rooms: number;
  players: number;
  ticks: number;
}

/** The server's figures since the mark. */
export interface ServerReport {
  type: 'report';
  rooms: number;
  players: number;
  ticks: number;
  ticksOnTime: number;
  inputsTaken: number;
  inputsRejected: number;
  zaps: number;
  hits: number;
  checksCompared: number;
  checksMismatched: number;
  checksUnmatched: number;
  eventLoopUtilization: number;
  /** This process's own CPU over the window (seconds): /proc's figure where /proc is missing. */
  cpuSeconds: number;
  seconds: number;
}

export interface BotsProgress {
  type: 'progress';
  joined: number;
  failed: number;
  /** Join times of the bots joined since the last progress (ms). */
  joinMs: number[];
  errors: Record<string, number>;
}

/** The bots' figures since the mark. */
export interface BotsReport {
  type: 'report';
  /** Bots joined and still connected at the report. */
  connected: number;
  /** Each connected bot's patches since the mark (state updates decoded). */
  patches: number[];
  bytesDown: number;
  bytesUp: number;
  inputsSent: number;
  checksSent: number;
  cpuSeconds: number;
  seconds: number;
  /** Console errors the SDK printed (e.g. `"refId" not found`), by their first words. */
  errors: Record<string, number>;
}
