/** A turn no peer reaches: "never joined" / "has not left". */
export const NEVER = 0x7fffffff;

/**
 * Who is in the session at which turn: each peer's first and last turn whose commands count. Every
 * peer holds the same table for every turn it runs, because each change is agreed before it takes
 * effect (a join in the host's list of an earlier turn; a departure after every survivor told the
 * host how far it holds the leaver's lists). `lost` is this peer's own view of who is gone and
 * only decides who acts as host meanwhile.
 */
export class Membership {
  readonly joinTurn: number[];
  readonly leaveAfter: number[];
  readonly lost: boolean[];

  constructor(readonly maxPeers: number) {
    this.joinTurn = new Array(maxPeers).fill(NEVER);
    this.leaveAfter = new Array(maxPeers).fill(NEVER);
    this.lost = new Array(maxPeers).fill(false);
  }

  isMember(peer: number, turn: number): boolean {
    return this.joinTurn[peer] <= turn && turn <= this.leaveAfter[peer];
  }

  /** In the session now or later (joined or agreed to join, not yet gone). */
  isCurrent(peer: number): boolean {
    return this.joinTurn[peer] !== NEVER && this.leaveAfter[peer] === NEVER;
  }

  join(peer: number, fromTurn: number): void {
    this.joinTurn[peer] = fromTurn;
    this.leaveAfter[peer] = NEVER;
    this.lost[peer] = false;
  }

  leave(peer: number, afterTurn: number): void {
    this.leaveAfter[peer] = afterTurn;
  }

  /**
   * The peer whose controls count in lists of `turn`: of the members then, the earliest to join,
   * the lowest index among equals (so a late joiner never takes the role from a peer it joined).
   */
  hostAt(turn: number): number {
    let host = -1;
    for (let p = 0; p < this.maxPeers; p++)
      if (this.isMember(p, turn) && (host < 0 || this.joinTurn[p] < this.joinTurn[host])) host = p;
    return host;
  }

  /** Who acts as host now in this peer's view: as hostAt, among the current peers not known lost. */
  acting(): number {
    let host = -1;
    for (let p = 0; p < this.maxPeers; p++)
      if (this.isCurrent(p) && !this.lost[p] && (host < 0 || this.joinTurn[p] < this.joinTurn[host]))
        host = p;
    return host;
  }

  /** The current peers, ascending. */
  current(): number[] {
    const peers: number[] = [];
    for (let p = 0; p < this.maxPeers; p++) if (this.isCurrent(p)) peers.push(p);
    return peers;
  }
}
