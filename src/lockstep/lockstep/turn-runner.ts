import { ListDigests } from './control-messages.js';
import { hostSeals, joinApplied } from './late-join.js';
import type { LockstepCore } from './lockstep-core.js';
import { TURN_RING } from './turn-store.js';

const EMPTY: readonly never[] = Object.freeze([]);

/**
 * Sealing this peer's lists and running turns: the part of a session every update walks through.
 * A turn runs only with every member's list for it; its controls (the host's) apply right after
 * it, so every peer changes turn length and membership between the same two turns.
 */
export class TurnRunner<T> {
  /** Commands queued since the last seal (the game's values, copied as peers will decode them). */
  readonly pending: T[] = [];
  private readonly byPeer: (readonly T[])[];
  /** Peers whose first differing checksum was reported. */
  private readonly desynced: boolean[];
  readonly waitingFor: number[] = [];
  /** Peers whose list digests were compared (once each: they come after a desync). */
  private readonly digestsCompared: boolean[];
  /** Per recent turn (TURN_RING slots), the CRC of each peer's list as run (0: none). */
  private readonly digestTurns = new Int32Array(TURN_RING).fill(-1);
  private readonly digests: Uint32Array;
  commandsExecuted = 0;
  desyncs = 0;

  constructor(private readonly core: LockstepCore<T>) {
    this.byPeer = new Array(core.maxPeers).fill(EMPTY);
    this.desynced = new Array(core.maxPeers).fill(false);
    this.digestsCompared = new Array(core.maxPeers).fill(false);
    this.digests = new Uint32Array(TURN_RING * core.maxPeers);
  }

  /** Seals this peer's list for the last turn run + delay, when it is in the session then. */
  seal(now: number): void {
    const core = this.core;
    const turn = core.executed + core.delay;
    if (turn <= core.newestOwn || !core.membership.isMember(core.self, turn)) return;
    const list = core.store.claim(core.self, turn);
    const pending = this.pending;
    for (let i = 0; i < pending.length; i++) list.commands[i] = pending[i];
    list.count = pending.length;
    pending.length = 0;
    const checksum = core.checksumAt(turn - core.delay);
    if (checksum !== null) {
      list.hasChecksum = true;
      list.checksum = checksum;
    }
    if (core.isHostNow()) hostSeals(core, list, now);
    list.bits = core.lists.measure(list);
    list.sealedAt = now;
    core.newestOwn = turn;
    core.sealed = true;
  }

  /** Fills waitingFor with the members whose list for `turn` is missing; true when none is. */
  complete(turn: number): boolean {
    const core = this.core;
    const waiting = this.waitingFor;
    waiting.length = 0;
    for (let p = 0; p < core.maxPeers; p++)
      if (core.membership.isMember(p, turn) && !core.store.has(p, turn)) waiting.push(p);
    return waiting.length === 0;
  }

  /** Whether some member has run `turn` already (its list for turn + delay is in): catch up. */
  behind(turn: number): boolean {
    const core = this.core;
    for (let p = 0; p < core.maxPeers; p++)
      if (
        p !== core.self &&
        core.membership.isMember(p, turn + core.delay) &&
        core.store.has(p, turn + core.delay)
      )
        return true;
    return false;
  }

  /** Runs `turn` (complete): the game's step, its checksum, the checks and the host's controls. */
  run(turn: number): void {
    const core = this.core;
    const m = core.membership;
    const byPeer = this.byPeer;
    const slot = turn & (TURN_RING - 1);
    const base = slot * core.maxPeers;
    this.digestTurns[slot] = turn;
    for (let p = 0; p < core.maxPeers; p++) {
      const list = m.isMember(p, turn) ? core.store.get(p, turn) : null;
      byPeer[p] = list === null ? EMPTY : list.view();
      this.digests[base + p] = list === null ? 0 : core.listDigest(list);
      if (list !== null) this.commandsExecuted += list.count;
    }
    core.o.game.executeTurn(turn, byPeer);
    core.executed = turn;
    core.recordChecksum(turn, core.checksumNow());
    this.compare(turn);
    const host = m.hostAt(turn);
    const hostList = host < 0 ? null : core.store.get(host, turn);
    if (hostList !== null)
      for (const control of hostList.controls) {
        if (control.kind === 'turnMs') {
          core.timing.turnMs = control.turnMs;
          core.pushEvent({ kind: 'turnLength', turn, turnMs: control.turnMs });
        } else if (control.peer !== core.self && !m.isCurrent(control.peer)) {
          m.join(control.peer, control.fromTurn);
          joinApplied(core, control.peer, turn, host === core.self);
        }
      }
    for (let p = 0; p < core.maxPeers; p++) byPeer[p] = EMPTY;
  }

  /** The checksums in `turn`'s lists are the senders' after turn - delay: compare them with ours. */
  private compare(turn: number): void {
    const core = this.core;
    const checked = turn - core.delay;
    const local = core.checksumAt(checked);
    if (local === null) return;
    let differs = false;
    for (let p = 0; p < core.maxPeers; p++) {
      if (p === core.self || !core.membership.isMember(p, turn)) continue;
      const list = core.store.get(p, turn);
      if (list === null || !list.hasChecksum || list.checksum === local) continue;
      differs = true;
      if (this.desynced[p]) continue;
      this.desynced[p] = true;
      this.sendDigests(p, checked);
      const dump = core.o.game.dumpState?.(checked);
      core.pushEvent({ kind: 'desync', turn: checked, peer: p, local, remote: list.checksum, dump });
    }
    if (differs) this.desyncs++;
  }

  /** Tells `peer` (a desync with it at `turn`) what each peer's list for that turn was here. */
  private sendDigests(peer: number, turn: number): void {
    const core = this.core;
    const slot = turn & (TURN_RING - 1);
    if (this.digestTurns[slot] !== turn) return;
    const base = slot * core.maxPeers;
    core.send(peer, ListDigests, {
      turn,
      digests: Array.from(this.digests.subarray(base, base + core.maxPeers)),
    });
  }

  /**
   * `from`'s digests of a turn (it found a desync with us; it may reach us before we find it):
   * taken once per peer, a member's; names whose lists differ. `from` ran a turn we ran before it.
   */
  digestsArrived(from: number, turn: number, digests: readonly number[]): void {
    const core = this.core;
    const slot = turn & (TURN_RING - 1);
    if (!core.membership.isCurrent(from) || this.digestsCompared[from] || digests.length !== core.maxPeers) {
      core.refuse(from, `list digests from peer ${from} not expected`);
      return;
    }
    this.digestsCompared[from] = true;
    if (this.digestTurns[slot] !== turn) return; // too old to compare here
    const base = slot * core.maxPeers;
    for (let p = 0; p < core.maxPeers; p++)
      if (digests[p] !== this.digests[base + p])
        core.pushEvent({ kind: 'listsDiffer', turn, peer: p, reportedBy: from });
  }
}
