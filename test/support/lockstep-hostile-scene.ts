import type { CustomChannel } from '../../src/channels/channel.js';
import type { ScratchList } from '../../src/channels/scratch-list.js';
import { LocalPeerLinks } from '../../src/lockstep/links/local-peer-links.js';
import { PeerConnection } from '../../src/lockstep/links/peer-connection.js';
import { controlFactory } from '../../src/lockstep/lockstep/control-messages.js';
import { LockstepSession } from '../../src/lockstep/lockstep/lockstep-session.js';
import { TurnChannel } from '../../src/lockstep/lockstep/turn-channel.js';
import { TurnList, TurnListCodec } from '../../src/lockstep/lockstep/turn-list.js';
import { TurnStore } from '../../src/lockstep/lockstep/turn-store.js';
import { compile } from '../../src/schema/codec.js';
import type { ReadStream } from '../../src/serialize/read-stream.js';
import type { WriteStream } from '../../src/serialize/write-stream.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { Order, type OrderValue, RtsSim } from './rts-sim.js';

/**
 * Three members: peers 0 and 1 run real sessions; peer 2 is a hand-driven member that writes
 * whatever lists and control messages it likes (test/lockstep-hostile*.test.ts).
 */
export const MAX_COMMANDS = 10;
/** Orders of peer 1 with this x are counted as they run. */
export const MARKED_X = 7;
export const lists = new TurnListCodec(compile(Order), MAX_COMMANDS);

/** The attacker's turn entry: a first turn and raw lists, or a raw writer. */
export class EvilChannel implements CustomChannel {
  write: ((ws: WriteStream) => void) | null = null;
  readonly inbound: TurnChannel<OrderValue>;

  constructor() {
    const store = new TurnStore<OrderValue>(3);
    this.inbound = new TurnChannel<OrderValue>(
      { self: 2, store, lists, newestOwn: -1, judge: () => 0, arrived: () => {}, stale: () => {} },
      0,
    );
  }

  lists(first: number, items: TurnList<OrderValue>[]): void {
    this.write = (ws) => {
      ws.bool(true);
      ws.uint32(first);
      ws.int(items.length - 1, 0, 63);
      for (const list of items) lists.write(ws, list);
    };
  }

  select(): number {
    return this.write === null ? 0 : 200;
  }
  writeSelected(ws: WriteStream): void {
    this.write?.(ws);
    this.write = null;
  }
  read(rs: ReadStream, staged: ScratchList<unknown>): boolean {
    return this.inbound.read(rs, staged);
  }
  apply(): void {
    this.inbound.apply();
  }
  acked(): void {}
}

export function list(turn: number, orders: OrderValue[] = []): TurnList<OrderValue> {
  const l = new TurnList<OrderValue>();
  l.reset(turn);
  orders.forEach((o, i) => {
    l.commands[i] = o;
  });
  l.count = orders.length;
  return l;
}

/**
 * `evil`: the attacker's index; the other two are honest (sessions[0] is the lower). `split`: the
 * attacker has a connection of its own to the other honest peer too (`evil2`, `attacker2`), so it
 * can send the two different lists (else see `mirror`).
 */
export function scene(SEED: number, evilPeer = 2, split = false) {
  const evil = evilPeer;
  const network = new MemoryNetwork();
  const transports = [0, 1, 2].map(() => network.createTransport());
  const addresses = transports.map((tr) => tr.localAddress);
  const links = transports.map((transport, self) => new LocalPeerLinks({ transport, self, addresses }));
  /** Per honest peer, per turn, the orders the attacker had run. */
  const honestPeers = [0, 1, 2].filter((p) => p !== evil);
  const fromTwo: Map<number, number>[] = [new Map(), new Map()];
  /** Per honest peer, peer 1's orders with x = MARKED_X it ran (the attacker forges those). */
  const marked = [0, 0];
  const sims = [0, 1].map(() => new RtsSim(64, SEED));
  const sessions = [0, 1].map(
    (i) =>
      new LockstepSession<OrderValue>({
        links: links[honestPeers[i]],
        command: Order,
        seed: SEED,
        members: [0, 1, 2],
        maxCommandsPerTurn: MAX_COMMANDS,
        adaptTurnMs: false,
        game: {
          executeTurn(turn, commands) {
            if (commands[evil].length > 0) fromTwo[i].set(turn, commands[evil].length);
            for (const o of commands[1]) if (o.x === MARKED_X) marked[i]++;
            for (const orders of commands) for (const o of orders) sims[i].order(o);
            sims[i].step(turn, sessions[i].random);
          },
          checksum: () => sims[i].hash,
        },
      }),
  );
  const channel = new EvilChannel();
  const { factory, Forward } = controlFactory(Math.ceil(lists.maxBits / 8));
  // The attacker's one connection, to the lower honest peer (see `mirror` for the other).
  const target = honestPeers[0];
  const attacker = new PeerConnection(
    links[evil],
    target,
    { factory, channels: [{ kind: 'reliable-ordered' }, { kind: 'custom', create: () => channel }] },
    0,
  );
  const channel2 = new EvilChannel();
  const attacker2 = new PeerConnection(
    links[evil],
    honestPeers[1],
    { factory, channels: [{ kind: 'reliable-ordered' }, { kind: 'custom', create: () => channel2 }] },
    0,
  );
  let now = 0;
  /** One 20 ms step: the honest peers update; the attacker sends what `act` prepares. */
  const step = (act?: () => void) => {
    now += 0.02;
    for (const s of sessions) s.update(now);
    links[evil].update(now);
    links[evil].receive((peer, data) => {
      if (peer === target) attacker.receivePacket(data);
      else if (split) attacker2.receivePacket(data);
    });
    act?.();
    attacker.update(now);
    if (split) attacker2.update(now);
  };
  /** The attacker as an honest member: its (empty) lists for the turns ahead of the slower peer. */
  const honest = (orders: Map<number, OrderValue[]> = new Map()) => {
    const from = Math.max(2, Math.min(sessions[0].turn, sessions[1].turn) + 1);
    const items = [];
    for (let turn = from; turn <= from + 2; turn++) items.push(list(turn, orders.get(turn)));
    channel.lists(from, items);
    if (split) channel2.lists(from, items);
  };
  return {
    honestPeers,
    links,
    sessions,
    sims,
    evil: channel,
    attacker,
    evil2: channel2,
    attacker2,
    step,
    honest,
    fromTwo,
    marked,
    Forward,
    now: () => now,
  };
}

/** The attacker's datagrams to the lower honest peer go to the other one as well. */
export function mirror(s: ReturnType<typeof scene>): void {
  const [target, other] = s.honestPeers;
  const links = s.links[[0, 1, 2].find((p) => !s.honestPeers.includes(p))!];
  const send = links.send.bind(links);
  links.send = (peer, data) => {
    send(peer, data);
    if (peer === target) send(other, data);
  };
}
