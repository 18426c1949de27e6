import { Departure, DepartureQuery, DepartureReply, Lost } from './control-messages.js';
import type { LockstepCore } from './lockstep-core.js';
import type { LockstepLeaveReason } from './lockstep-options.js';
import { NEVER } from './membership.js';
import { TurnList } from './turn-list.js';
import { TURN_RING } from './turn-store.js';

interface Departing {
  reason: LockstepLeaveReason;
  /** The first of the leaver's lists the host lacked when it asked. */
  from: number;
  waiting: Set<number>;
  minExecuted: number;
  /** Per survivor, the newest of k's lists it forwarded (checked against the `last` it replies). */
  forwardedUpTo: Map<number, number>;
}

/**
 * Leaving and timing out, agreed so that every survivor stops counting the leaver's commands after
 * the same turn. A peer that loses its link to k (its links report 'left' or 'timedOut') tells the
 * acting host (Lost), which treats k as gone too. The host freezes k (takes no more of its lists),
 * and asks every survivor how far it holds k's lists; each freezes k as well, sends the host the
 * lists it has past the host's, and says up to where (its lists run in turn order, so no survivor
 * has run a turn past that). The host takes X, the last turn up to which it now holds them all,
 * forwards them to every survivor, and announces "k leaves after X". Nobody can have run X + 1:
 * that needed k's list for it, which no survivor held. A new host (the old one left) asks again.
 */
export class Departures<T> {
  private readonly running = new Map<number, Departing>();
  private readonly reasons: LockstepLeaveReason[];
  /** The host each lost peer was reported to (-1: not yet). */
  private readonly reportedTo: number[];
  /** Per leaver: the host whose query this peer answered (-1: none open); its lists are taken from it alone. */
  private readonly askedBy: number[];
  /** Per leaver: a query from the next host, held until this peer loses k itself (-1: none). */
  private readonly heldFrom: number[];
  private readonly heldFirst: number[];
  private readonly scratch = { list: new TurnList<T>() };

  constructor(private readonly core: LockstepCore<T>) {
    this.reasons = new Array(core.maxPeers).fill('dropped');
    this.reportedTo = new Array(core.maxPeers).fill(-1);
    this.askedBy = new Array(core.maxPeers).fill(-1);
    this.heldFrom = new Array(core.maxPeers).fill(-1);
    this.heldFirst = new Array(core.maxPeers).fill(0);
  }

  /** This peer lost `peer` (its links said so, or another peer did). */
  lost(peer: number, reason: LockstepLeaveReason): void {
    const m = this.core.membership;
    if (peer === this.core.self || !m.isCurrent(peer) || m.lost[peer]) return;
    m.lost[peer] = true;
    this.reasons[peer] = reason;
    this.gone(peer);
    const held = this.heldFrom[peer];
    if (held >= 0) {
      this.heldFrom[peer] = -1;
      this.query(held, peer, this.heldFirst[peer]);
    }
    this.act();
  }

  /** Starts what the acting host must do, or tells it who is lost. */
  act(): void {
    const core = this.core;
    const m = core.membership;
    if (core.state === 'joining') return;
    const host = m.acting();
    for (let p = 0; p < core.maxPeers; p++) {
      if (!m.lost[p] || !m.isCurrent(p)) continue;
      if (host === core.self) {
        if (!this.running.has(p)) this.start(p);
      } else if (host >= 0 && this.reportedTo[p] !== host) {
        this.reportedTo[p] = host;
        core.send(host, Lost, { peer: p, reason: this.reasons[p] });
      }
    }
  }

  private start(k: number): void {
    const core = this.core;
    const from = this.freeze(k) + 1;
    const waiting = new Set(core.others().filter((p) => p !== k && !core.membership.lost[p]));
    this.running.set(k, {
      reason: this.reasons[k],
      from,
      waiting,
      minExecuted: core.executed,
      forwardedUpTo: new Map(),
    });
    for (const p of waiting) core.send(p, DepartureQuery, { peer: k, from });
    if (waiting.size === 0) this.finish(k);
  }

  /** Takes no more of k's lists past those held in a row now; returns the last of them. */
  private freeze(k: number): number {
    const core = this.core;
    if (core.frozen[k] === NEVER)
      core.frozen[k] = core.store.contiguous(k, Math.max(core.executed + 1, core.membership.joinTurn[k]));
    return core.frozen[k];
  }

  query(from: number, k: number, first: number): void {
    const core = this.core;
    const m = core.membership;
    if (k === core.self) return;
    if (core.state !== 'joining' && !this.fromHost(from, k)) {
      if (from === actingWithout(core, k) && m.isCurrent(k)) {
        // The next host lost k before this peer did: answered once this peer loses k too (a
        // peer cannot have the host counted out by saying it is lost to this one).
        this.heldFrom[k] = from;
        this.heldFirst[k] = first;
        return;
      }
      core.refuse(from, `departure of peer ${k} asked by peer ${from}, not the host`);
      return;
    }
    if (core.state === 'joining' && !welcomedBy(core, from)) {
      core.refuse(from, `departure of peer ${k} asked by peer ${from}, not a member of the welcome`);
      return;
    }
    let last = -1;
    if (core.state !== 'joining') {
      this.askedBy[k] = from;
      if (m.isCurrent(k)) {
        if (!m.lost[k]) {
          m.lost[k] = true;
          this.gone(k);
        }
        last = this.freeze(k);
      } else last = m.leaveAfter[k] === NEVER ? -1 : m.leaveAfter[k];
      for (let t = Math.max(first, m.joinTurn[k], last - TURN_RING / 2); t <= last; t++)
        this.forward(from, k, t);
    }
    core.send(from, DepartureReply, { peer: k, last, executed: core.executed });
  }

  private forward(to: number, k: number, turn: number): void {
    const list = this.core.encodeList(k, turn);
    if (list !== null) this.core.send(to, this.core.Forward, { peer: k, turn, list });
  }

  /**
   * A forwarded list of a leaver: from the host that asked this peer, or to this host from a
   * survivor it asked, past what it held and no further than k could have sealed (k seals a list
   * for T only after running T - delay, which needs this host's list for it).
   */
  forwarded(from: number, k: number, turn: number, list: Uint8Array): void {
    const core = this.core;
    const m = core.membership;
    const d = this.running.get(k);
    const valid =
      from !== k &&
      m.isCurrent(from) &&
      m.lost[k] &&
      m.isMember(k, turn) &&
      (d !== undefined
        ? d.waiting.has(from) && turn >= d.from && turn <= core.newestOwn + core.delay
        : this.askedBy[k] === from);
    if (!valid) {
      core.refuse(from, `list of peer ${k} for turn ${turn} forwarded by peer ${from} outside a departure`);
      return;
    }
    if (d !== undefined && turn > (d.forwardedUpTo.get(from) ?? -1)) d.forwardedUpTo.set(from, turn);
    core.storeForwarded(k, turn, list, this.scratch);
  }

  reply(from: number, k: number, last: number, executed: number): void {
    const d = this.running.get(k);
    // Not asked, or counted out meanwhile: nothing to wait for.
    if (d === undefined || !d.waiting.delete(from)) return;
    // A survivor that forwarded lists past the last it says it holds is lying about one of them.
    if ((d.forwardedUpTo.get(from) ?? -1) > last)
      this.core.refuse(from, `peer ${from} forwarded lists of peer ${k} past the last it holds (${last})`);
    d.minExecuted = Math.min(d.minExecuted, executed);
    if (d.waiting.size === 0) this.finish(k);
  }

  private finish(k: number): void {
    const core = this.core;
    const d = this.running.get(k)!;
    const last = core.store.contiguous(k, d.from);
    const first = Math.max(d.minExecuted + 1, core.membership.joinTurn[k], last - TURN_RING / 2);
    for (const p of core.others()) {
      if (p === k || core.membership.lost[p]) continue;
      for (let t = first; t <= last; t++) this.forward(p, k, t);
      core.send(p, Departure, { peer: k, afterTurn: last, reason: d.reason });
    }
    // The leaver hears of it if it is still there (one peer lost it, not all).
    if (core.traffic.connectedPeers().includes(k))
      core.send(k, Departure, { peer: k, afterTurn: last, reason: d.reason });
    this.apply(k, last, d.reason);
  }

  /** The host's announcement; taken from whoever is host once `k` is counted out. */
  announced(from: number, k: number, afterTurn: number, reason: LockstepLeaveReason): void {
    const core = this.core;
    if (!this.fromHost(from, k)) {
      core.refuse(from, `departure of peer ${k} announced by peer ${from}, not the host`);
      return;
    }
    // Every survivor told the host how far it ran before it decided: an earlier turn is a forgery.
    if (k !== core.self && core.membership.isCurrent(k) && afterTurn < core.executed) {
      core.refuse(from, `departure of peer ${k} after turn ${afterTurn}, already ran ${core.executed}`);
      return;
    }
    this.apply(k, afterTurn, reason);
  }

  /**
   * Whether `from` acts as host: now, or once `k` is counted out — only when this peer lost k
   * itself (or answered for it), so the next in line cannot have the host counted out on its word.
   */
  private fromHost(from: number, k: number): boolean {
    const m = this.core.membership;
    return from === m.acting() || (m.lost[k] && from === actingWithout(this.core, k));
  }

  private apply(k: number, afterTurn: number, reason: LockstepLeaveReason): void {
    const core = this.core;
    const m = core.membership;
    if (k === core.self) {
      if (core.state === 'running') {
        core.state = 'removed';
        core.pushEvent({ kind: 'removed', afterTurn });
      }
      return;
    }
    if (!m.isCurrent(k)) return;
    m.leave(k, afterTurn);
    m.lost[k] = false;
    core.frozen[k] = NEVER;
    core.channels[k]!.stopSending();
    core.joinRequests.delete(k);
    this.running.delete(k);
    this.reportedTo[k] = -1;
    this.askedBy[k] = -1;
    this.heldFrom[k] = -1;
    this.gone(k);
    core.pushEvent({ kind: 'left', peer: k, afterTurn, reason });
  }

  /** A peer is gone: no departure waits for its answer any more. */
  private gone(peer: number): void {
    for (const [k, d] of this.running) if (d.waiting.delete(peer) && d.waiting.size === 0) this.finish(k);
  }
}

/** The acting host were `k` counted out. */
function actingWithout<T>(core: LockstepCore<T>, k: number): number {
  const m = core.membership;
  const was = m.lost[k];
  m.lost[k] = true;
  const host = m.acting();
  m.lost[k] = was;
  return host;
}

/** A joiner: whether `from` is a member in the table of the Welcome it holds. */
function welcomedBy<T>(core: LockstepCore<T>, from: number): boolean {
  const w = core.welcome?.value;
  return w !== undefined && w.joinTurns[from] !== NEVER && w.leaveAfters[from] === NEVER;
}
