import type { RefusalReason } from './rollback-channel.js';

/** What `advanceFrame` did this call. */
export type AdvanceResult =
  /** The frame ran (after any rollback): draw it. */
  | 'advanced'
  /** Not every peer is connected yet: nothing ran. */
  | 'synchronizing'
  /** This peer runs ahead of another: it skips this frame so the other catches up. */
  | 'waiting'
  /** A peer's inputs are `maxPrediction` frames late (see `waitingFor`): nothing ran. */
  | 'stalled';

/** The session's lifecycle (GGRS's SessionState, plus closed). */
export type RollbackState = 'synchronizing' | 'running' | 'closed';

/** Something the session reports: it never throws for what peers or the network do. */
export type RollbackEvent =
  | { readonly kind: 'connected'; readonly peer: number }
  /** Every peer is connected: frames run from now on. */
  | { readonly kind: 'running' }
  | { readonly kind: 'disconnected'; readonly peer: number; readonly reason: 'left' | 'timedOut' }
  /**
   * The remaining peers agreed `peer` is gone: its inputs stand up to `lastFrame`, and from the
   * frame after it runs with the initial input (advance's `departed` says so).
   */
  | { readonly kind: 'departed'; readonly peer: number; readonly lastFrame: number }
  /** A stall began: these peers' inputs are `maxPrediction` frames late. */
  | { readonly kind: 'stalled'; readonly frame: number; readonly waitingFor: readonly number[] }
  /**
   * A checksum differs: the state at the start of `frame` is not the same here and at `peer`
   * (the first such frame is where the games diverged, within `checksumInterval`).
   */
  | {
      readonly kind: 'desync';
      readonly frame: number;
      readonly peer: number;
      readonly local: number;
      readonly remote: number;
    };

export interface RollbackPeerStats {
  connected: boolean;
  /** Round trip, ms (the packet layer's smoothed figure). */
  rttMs: number;
  /** The newest frame whose input this peer sent us (all before it too). */
  lastInputFrame: number;
  /** Our advantage over this peer, frames (the newest sample; positive: we run ahead). */
  advantage: number;
  /** The peer's own newest measure of its advantage over us. */
  remoteAdvantage: number;
  packetsReceived: number;
  /** Its datagrams the packet layer refused (not a packet at all). */
  packetsInvalid: number;
  /** Its packets refused, by reason. */
  refused: Record<RefusalReason, number>;
}

export interface RollbackStats {
  /** The next frame to run. */
  frame: number;
  /** Every peer's input is known up to here. */
  confirmedFrame: number;
  rollbacks: number;
  /** Frames run again by rollbacks (the frame rolled back to included). */
  framesResimulated: number;
  maxRollbackDepth: number;
  /** Rollbacks by depth: [depth] counts rollbacks of `depth` frames (index 0 unused). */
  rollbackDepths: number[];
  /** Calls that did not run a frame because a peer's inputs were too late. */
  stalledFrames: number;
  /** Frames skipped to let slower peers catch up. */
  waitedFrames: number;
  checksumsCompared: number;
  /** Checksum pairs never compared: one side's was overwritten before the other's arrived. */
  checksumsSkipped: number;
  desyncs: number;
  /** Events dropped because nobody polled them (the queue holds 256). */
  eventsDropped: number;
  /** Per peer index (this peer's own entry stays empty). */
  peers: RollbackPeerStats[];
}

export function zeroRefusals(): Record<RefusalReason, number> {
  return {
    malformed: 0,
    frameTooFarAhead: 0,
    inputGap: 0,
    confirmedInputChanged: 0,
    badChecksumFrame: 0,
    flood: 0,
  };
}

export function zeroStats(peers: number, maxPrediction: number): RollbackStats {
  return {
    frame: 0,
    confirmedFrame: -1,
    rollbacks: 0,
    framesResimulated: 0,
    maxRollbackDepth: 0,
    rollbackDepths: new Array(maxPrediction + 2).fill(0),
    stalledFrames: 0,
    waitedFrames: 0,
    checksumsCompared: 0,
    checksumsSkipped: 0,
    desyncs: 0,
    eventsDropped: 0,
    peers: Array.from({ length: peers }, () => ({
      connected: false,
      rttMs: 0,
      lastInputFrame: -1,
      advantage: 0,
      remoteAdvantage: 0,
      packetsReceived: 0,
      packetsInvalid: 0,
      refused: zeroRefusals(),
    })),
  };
}
