/**
 * One process of the NAT traversal tests, run inside a network namespace:
 *   node nat-node.js rendezvous <bind address> <backend key hex> <protocol id hex>
 *   node nat-node.js peer <bind address> <peer token base64>
 * The rendezvous prints "ready" once bound and its counters as JSON when told to stop (SIGTERM).
 * A peer connects to every other peer of its session, sends each a reliable message through
 * PeerConnection, and once it holds one from each prints a JSON line: the path to each peer and
 * its counters. Both keep serving (a peer's acks and keep-alives let the others finish) until killed.
 */
import { defineMessage, MessageFactory } from '../../src/channels/index.js';
import { PeerConnection } from '../../src/lockstep/links/peer-connection.js';
import { SecurePeerLinks } from '../../src/lockstep/links/secure-peer-links.js';
import { t } from '../../src/schema/schema.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';

const Note = defineMessage('note', t.object({ from: t.int(0, 63) }));
const factory = new MessageFactory([Note]);
const started = performance.now();
const clock = () => (performance.now() - started) / 1000;

async function rendezvous(bind: string, keyHex: string, protocolHex: string): Promise<void> {
  const transport = await UdpTransport.open({ address: bind });
  const server = new RendezvousServer({
    transport,
    protocolId: BigInt(`0x${protocolHex}`),
    privateKey: new Uint8Array(Buffer.from(keyHex, 'hex')),
  });
  const timer = setInterval(() => server.update(clock()), 2);
  process.on('SIGTERM', () => {
    clearInterval(timer);
    process.stdout.write(`${JSON.stringify({ rendezvous: server.stats() })}\n`, () => process.exit(0));
  });
  console.log('ready');
}

async function peer(bind: string, tokenBase64: string): Promise<void> {
  const transport = await UdpTransport.open({ address: bind });
  // A generous punch timeout: on a starved CI machine a pair NATs let through must not give up
  // on the direct path before its punches are answered.
  const links = new SecurePeerLinks({
    transport,
    token: new Uint8Array(Buffer.from(tokenBase64, 'base64')),
    punchTimeout: 10,
  });
  const connections = new Map<number, PeerConnection<typeof Note>>();
  const heardFrom = new Set<number>();
  let reported = false;
  setInterval(() => {
    const now = clock();
    links.update(now);
    links.receive((from, data) => connections.get(from)?.receivePacket(data));
    for (let e = links.pollEvent(); e !== null; e = links.pollEvent()) {
      if (e.kind !== 'connected' || connections.has(e.peer)) continue;
      const connection = new PeerConnection(
        links,
        e.peer,
        { factory, channels: [{ kind: 'reliable-ordered' }] },
        now,
      );
      connection.channels.send(0, Note, { from: links.self });
      connections.set(e.peer, connection);
    }
    for (const connection of connections.values()) {
      connection.update(now);
      for (let m = connection.channels.receive(0); m !== null; m = connection.channels.receive(0))
        if (m.is(Note) && m.value.from === connection.peer) heardFrom.add(connection.peer);
    }
    if (!reported && heardFrom.size === links.maxPeers - 1) {
      reported = true;
      const paths: Record<number, string | null> = {};
      for (let p = 0; p < links.maxPeers; p++) if (p !== links.self) paths[p] = links.pathTo(p);
      console.log(JSON.stringify({ self: links.self, seconds: now, paths, counters: links.stats() }));
    }
  }, 5);
}

// The test holds stdin open: when it ends (the test finished or died), so does this process.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
const [mode, ...args] = process.argv.slice(2);
if (mode === 'rendezvous') await rendezvous(args[0], args[1], args[2]);
else if (mode === 'peer') await peer(args[0], args[1]);
else {
  console.error('usage: nat-node.js rendezvous <bind> <key hex> <protocol hex> | peer <bind> <token base64>');
  process.exit(2);
}
