/**
 * A GameClient's kill-cams: blocks from the server (GameServer.killcam) opened as hostile files in
 * players of their own, with the killer's view delay, then handed to the game's handlers during
 * `update`. A clip or view delay that is refused is counted, never thrown.
 */
import type { ReplayPlayer } from '../latency/replay-player.js';
import { ReplayError } from '../replication/recording/replay-error.js';
import { decodeKillcam, MAX_VIEW_DELAY_TICKS } from './killcam-wire.js';

export type KillcamHandler = (replay: ReplayPlayer, follow: number) => void;

export class KillcamInbox {
  private readonly handlers = new Set<KillcamHandler>();
  private readonly received: { replay: ReplayPlayer; follow: number }[] = [];
  /** Kill-cam blocks refused: a corrupt or hostile clip, or a view delay that is not one. */
  refused = 0;

  constructor(private readonly open: (clip: Uint8Array) => ReplayPlayer) {}

  add(handler: KillcamHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** A block from the game's message channel (one that is not a kill-cam is left alone). */
  receive(block: Uint8Array): void {
    const killcam = decodeKillcam(block);
    if (killcam === null) return;
    const delay = killcam.viewDelayTicks;
    if (!(delay >= 0 && delay <= MAX_VIEW_DELAY_TICKS)) {
      this.refused++;
      return;
    }
    try {
      const replay = this.open(killcam.clip);
      const follow = killcam.follow >= 0 && killcam.follow < replay.mirror.capacity ? killcam.follow : -1;
      replay.follow(follow);
      replay.viewDelayTicks = follow >= 0 ? Math.min(delay, replay.mirror.historyLength - 1) : 0;
      this.received.push({ replay, follow });
    } catch (error) {
      if (!(error instanceof ReplayError)) throw error;
      this.refused++;
    }
  }

  /** Hands what was received to the handlers. */
  dispatch(): void {
    for (const { replay, follow } of this.received.splice(0))
      for (const handler of this.handlers) handler(replay, follow);
  }
}
