/** What the load tester and its bot processes say to each other over IPC. */

/** A bot process's settings (JSON in its argv[2]). */
export interface BotsConfig {
  backendUrl: string;
  bots: number;
  /** The first bot's number (bot names are unique across processes). */
  firstBot: number;
  mode: 'join' | 'matchmake';
  seed: number;
  /** Arrivals spread over this many seconds from the start. */
  rampSeconds: number;
  /** Mean session, seconds (each is 0.5 to 1.5 times it). */
  sessionSeconds: number;
  /** Mean pause before coming back, seconds (each is 0.5 to 1.5 times it). */
  gapSeconds: number;
  /**
   * Light bots (the default of capacity runs) read every ghost section in full but build no ghost
   * values (scripts/loadtest-light-mirror.ts); full bots keep a ClientMirror. The server cannot
   * tell them apart: the same inputs at the same rate, the same acks.
   */
  light: boolean;
  /** The rooms' tick rate: a state packet a tick is what a bot expects. */
  tickRate: number;
}

/** The parent's window marks: the steady window starts, or ends (the bots answer with a WindowReport). */
export interface WindowMark {
  type: 'window';
  phase: 'start' | 'end';
}

/** A bot process's figures over the steady window, sent once at its end. */
export interface WindowReport {
  kind: 'window';
  /**
   * Per bot connected at least a second of the window: state packets (ghost sections) applied ÷
   * tickRate × its seconds playing in the window.
   */
  delivered: number[];
  /** Mean bots playing over the window (bot-seconds ÷ window seconds). */
  meanPlaying: number;
  /** UDP payload bytes the process's sockets sent and received in the window. */
  bytesSent: number;
  bytesReceived: number;
  /** The window as this process timed it, seconds. */
  seconds: number;
}

/** A bot process's figures since its previous report (`playing` and `cpuPercent`: now). */
export interface BotReport {
  /** Bots connected and mirroring their room now. */
  playing: number;
  /** Sessions that reached their first replicated snapshot. */
  joins: number;
  /** Sessions ended by the bot (netcode disconnect). */
  leaves: number;
  /** Sessions that failed, by reason. */
  failures: Record<string, number>;
  /** Auth to first snapshot, ms, per join. */
  joinMs: number[];
  /** Auth to connect token (the HTTP part alone), ms, per seat. */
  httpMs: number[];
  /** Connect token to netcode connected (the handshake), and connected to the first state applied, ms, per join. */
  handshakeMs: number[];
  firstStateMs: number[];
  /** Ghost sections applied by the mirrors. */
  snapshots: number;
  inputs: number;
  /**
   * Datagrams the bots' sockets sent, received (arrived: delivered or waiting in the socket's
   * queue), and dropped (a full receive queue), since the last report.
   */
  udpSent: number;
  udpReceived: number;
  udpDropped: number;
  cpuPercent: number;
  /** The latest the bots' 10 ms timer ran in the period, ms. */
  lagMs: number;
  /** The last report: every bot has left. */
  final: boolean;
  /** When the socket counters were read: ms since the epoch (this machine's clock, shared by every process). */
  countedAt: number;
}

export function emptyReport(): BotReport {
  return {
    playing: 0,
    joins: 0,
    leaves: 0,
    failures: {},
    joinMs: [],
    httpMs: [],
    handshakeMs: [],
    firstStateMs: [],
    snapshots: 0,
    inputs: 0,
    udpSent: 0,
    udpReceived: 0,
    udpDropped: 0,
    cpuPercent: 0,
    lagMs: 0,
    final: false,
    countedAt: 0,
  };
}
