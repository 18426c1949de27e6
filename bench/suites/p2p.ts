/**
 * Peer-to-peer introductions: how long from N peers saying hello to the rendezvous until every
 * peer holds an authenticated path to every other, over real UDP on loopback, directly (hole
 * punched) and through the relay. Each round starts a fresh rendezvous and fresh sockets; the
 * rendezvous and all peers run in this process, polled in a setImmediate loop, so the figures are
 * the protocol's round trips and crypto plus one process's scheduling, not network latency (on the
 * internet add about two round trips to the rendezvous and one between the peers). Relayed pairs
 * here skip the punching (punchTimeout 0); by default a pair tries 3 s before it takes the relay.
 */
import type { SecurePeerLinks } from '../../src/lockstep/links/secure-peer-links.js';
import type { DatagramTransport } from '../../src/transport/transport.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { onlyFrom, peersOf, rendezvousOn } from '../../test/support/p2p-scene.js';
import { check, fmt, median, type SuiteContext } from '../harness.js';

interface Round {
  /** Milliseconds until every pair was connected. */
  ms: number;
  relayed: number;
}

async function introduce(count: number, relay: boolean, session: bigint): Promise<Round> {
  const rendezvousTransport = await UdpTransport.open();
  const rendezvous = rendezvousOn(rendezvousTransport);
  const sockets = await Promise.all(Array.from({ length: count }, () => UdpTransport.open()));
  const transports: DatagramTransport[] = sockets.map((s) =>
    relay ? onlyFrom(s, rendezvousTransport.localAddress) : s,
  );
  const started = performance.now();
  const links: SecurePeerLinks[] = peersOf(transports, rendezvous.token, session, count, {
    punchTimeout: relay ? 0 : 3,
  });
  const done = () => links.every((l) => l.connectedPeers().length === count - 1);
  try {
    await new Promise<void>((resolve, reject) => {
      const loop = () => {
        const now = (performance.now() - started) / 1000;
        rendezvous.server.update(now);
        for (const l of links) {
          l.update(now);
          l.receive(() => {});
        }
        if (done()) resolve();
        else if (now > 10) reject(new Error(`${count} peers not connected after 10 s`));
        else setImmediate(loop);
      };
      loop();
    });
    const ms = performance.now() - started;
    for (const l of links)
      for (const p of l.connectedPeers())
        check(l.pathTo(p) === (relay ? 'relay' : 'direct'), `peer ${l.self} → ${p}: ${l.pathTo(p)}`);
    return { ms, relayed: rendezvous.server.stats().relay.forwarded };
  } finally {
    for (const l of links) l.close();
    for (const s of sockets) s.close();
    rendezvousTransport.close();
  }
}

export async function runP2p(ctx: SuiteContext): Promise<void> {
  const rounds = ctx.options.quick ? 3 : 9;
  let session = 1n;
  for (const relay of [false, true])
    for (const count of [2, 8]) {
      const times: number[] = [];
      for (let r = 0; r < rounds + 1; r++) {
        const round = await introduce(count, relay, session++);
        if (relay) check(round.relayed > 0, 'relayed pairs forwarded nothing');
        if (r > 0) times.push(round.ms); // the first round warms up
      }
      const sorted = [...times].sort((a, b) => a - b);
      const label = `${count} peers ${relay ? 'through the relay' : 'direct (hole punched)'}`;
      ctx.note(
        `p2p introduce ${label}: median ${fmt(median(times))} ms (min ${fmt(sorted[0])}, max ${fmt(sorted.at(-1)!)}; ${rounds} rounds, ${(count * (count - 1)) / 2} pair${count === 2 ? '' : 's'})`,
      );
      ctx.record(`p2p.${relay ? 'relay' : 'direct'}.${count}.ms`, median(times));
    }
}
