import { Welcome } from './control-messages.js';
import type { LockstepCore } from './lockstep-core.js';
import { NEVER } from './membership.js';
import { MAX_CONTROLS, type TurnList } from './turn-list.js';

/**
 * Late joins. The joiner asks every peer (JoinRequest, again each second); the acting host puts
 * "peer j joins, its commands count from turn S + 2 × delay" in its list for turn S. Every member
 * applies it right after running S and starts sending the joiner its lists from S + 1; the host
 * sends the Welcome (the session's table at S) and the state after S as a block. The joiner loads
 * it and runs from S + 1; its first list is for S + 2 × delay, sealed once it has caught up to
 * S + delay, so the others wait for it only if the snapshot took more than about delay turns.
 */
export interface WelcomeValue {
  turn: number;
  fromTurn: number;
  turnMs: number;
  random: number;
  joinTurns: number[];
  leaveAfters: number[];
}

/** The host's additions to the list it seals: a turn-length change, then joins, within MAX_CONTROLS. */
export function hostSeals<T>(core: LockstepCore<T>, list: TurnList<T>, now: number): void {
  const turnMs = core.timing.deciding(now) ? core.timing.decide(now, core.others()) : 0;
  if (turnMs > 0) list.controls.push({ kind: 'turnMs', turnMs });
  for (const peer of core.joinRequests) {
    if (list.controls.length >= MAX_CONTROLS) break;
    core.joinRequests.delete(peer);
    if (!core.membership.isCurrent(peer))
      list.controls.push({ kind: 'join', peer, fromTurn: list.turn + 2 * core.delay });
  }
}

/** A join control ran (after `turn`): start sending the joiner our lists; the host welcomes it. */
export function joinApplied<T>(core: LockstepCore<T>, peer: number, turn: number, host: boolean): void {
  const m = core.membership;
  core.pushEvent({ kind: 'joined', peer, fromTurn: m.joinTurn[peer] });
  core.channels[peer]!.sendFromTurn(Math.max(turn + 1, m.joinTurn[core.self]));
  if (!host) return;
  const game = core.o.game;
  if (game.saveState === undefined) {
    core.lastRefusal = `peer ${peer} joins but the game has no saveState`;
    return;
  }
  const channels = core.connections[peer]!.channels;
  const queue = channels.channels[0];
  // The Welcome and its state go together or not at all.
  if (queue.sendQueueDepth + 2 > queue.config.sendQueueSize) {
    core.messagesDropped++;
    return;
  }
  core.send(peer, Welcome, {
    turn,
    fromTurn: m.joinTurn[peer],
    turnMs: core.timing.turnMs,
    random: core.random.state,
    joinTurns: [...m.joinTurn],
    leaveAfters: [...m.leaveAfter],
  });
  channels.sendBlock(0, game.saveState());
}

/** The joiner got a Welcome: kept until its block (the state) arrives on the same channel. */
export function welcomeArrived<T>(core: LockstepCore<T>, from: number, w: WelcomeValue): void {
  const valid =
    core.state === 'joining' &&
    w.turn >= 0 &&
    w.fromTurn > w.turn &&
    w.joinTurns.length === core.maxPeers &&
    w.leaveAfters.length === core.maxPeers &&
    w.joinTurns[core.self] === w.fromTurn &&
    w.leaveAfters[core.self] === NEVER &&
    hostIn(w) === from;
  if (!valid) {
    core.refuse(from, `welcome from peer ${from} not expected, or not from the host its table names`);
    return;
  }
  // The first is kept: a later one (another peer's) could swap the state under the first's block.
  if (core.welcome !== null) {
    core.refuse(from, `a second welcome, from peer ${from}`);
    return;
  }
  core.welcome = { from, value: w };
}

/** The host at the Welcome's turn by its own table (as Membership.hostAt). */
function hostIn(w: WelcomeValue): number {
  let host = -1;
  for (let p = 0; p < w.joinTurns.length; p++) {
    const member = w.joinTurns[p] <= w.turn && w.turn <= w.leaveAfters[p];
    if (member && (host < 0 || w.joinTurns[p] < w.joinTurns[host])) host = p;
  }
  return host;
}

/** The snapshot block arrived: load it and run from the Welcome's turn + 1. */
export function snapshotArrived<T>(
  core: LockstepCore<T>,
  from: number,
  bytes: Uint8Array,
  now: number,
): void {
  const welcome = core.welcome;
  if (core.state !== 'joining' || welcome === null || welcome.from !== from) {
    core.refuse(from, 'snapshot without a welcome');
    return;
  }
  const w = welcome.value;
  const game = core.o.game;
  if (game.loadState === undefined) {
    core.lastRefusal = 'a snapshot arrived but the game has no loadState';
    return;
  }
  game.loadState(bytes, w.turn);
  core.random.state = w.random;
  const m = core.membership;
  for (let p = 0; p < core.maxPeers; p++) {
    m.joinTurn[p] = w.joinTurns[p];
    m.leaveAfter[p] = w.leaveAfters[p];
  }
  core.timing.turnMs = w.turnMs;
  core.executed = w.turn;
  core.recordChecksum(w.turn, core.checksumNow());
  core.timing.begin(now);
  core.state = 'running';
  core.welcome = null;
  for (const p of core.others()) core.channels[p]!.sendFromTurn(w.fromTurn);
  core.pushEvent({ kind: 'started', turn: w.turn });
}
