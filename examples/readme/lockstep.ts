/**
 * The README's lockstep example, verbatim between the region markers; what it leaves to the reader
 * is declared around it so that tsc checks it (test/project/readme-examples.test.ts). A whole session of
 * four peers under the network simulator is test/p2p/lockstep.test.ts.
 */
import type { DeterministicRandom, PeerLinks } from 'ghostwire/p2p';

declare const links: PeerLinks; // LocalPeerLinks on a LAN or in tests; the secure links across the internet
declare const now: number;
declare const world: {
  order(unit: number, x: number, y: number): void;
  step(random: DeterministicRandom): void;
  bytes(): Uint8Array;
  load(bytes: Uint8Array): void;
  describe(): string;
};
declare function showWaitingFor(peers: readonly number[]): void;
declare function report(what: unknown): void;

// #region readme
import { LockstepSession, stateChecksum } from 'ghostwire/p2p';
import { t } from 'ghostwire';

const Order = t.object({ unit: t.uint16(), x: t.int(0, 4095), y: t.int(0, 4095) }); // one command

const session = new LockstepSession({
  links,
  command: Order,
  seed: 1234,                                   // the same on every peer: session.random is the shared PRNG
  game: {
    executeTurn(turn, commands) {               // commands[peer]: that peer's orders for the turn, in order
      for (const orders of commands) for (const o of orders) world.order(o.unit, o.x, o.y);
      world.step(session.random);               // integer or fixed-point math only
    },
    checksum: () => stateChecksum(world.bytes()), // compared between peers every turn
    saveState: () => world.bytes(),             // a late joiner's snapshot
    loadState: (bytes) => world.load(bytes),
    dumpState: () => world.describe(),          // attached to a desync report
  },
});
// each frame:
session.queue({ unit: 7, x: 100, y: 220 });     // runs 2 turns from now (turns of 100 ms), on every peer
session.update(now);                            // receives, runs every turn that is due and complete, sends
for (let e = session.pollEvent(); e !== null; e = session.pollEvent()) {
  if (e.kind === 'stalled') showWaitingFor(e.waitingFor); // a turn is due and these peers' commands are not in
  if (e.kind === 'desync') report(e);           // { turn, peer, local, remote, dump }: the first differing turn
}
// #endregion
