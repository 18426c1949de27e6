/**
 * Players matched into a peer session by the backend: each authenticates, matchmakes in a peer
 * pool, and opens SecurePeerLinks over its own real UDP socket with the token it was given; a
 * timer updates every peer's links and a PeerConnection per connected peer.
 */
import { defineMessage, MessageFactory } from '../../src/channels/index.js';
import { BackendClient, type PeerSeat } from '../../src/join/backend-client.js';
import { PeerConnection } from '../../src/lockstep/links/peer-connection.js';
import { SecurePeerLinks } from '../../src/lockstep/links/secure-peer-links.js';
import { t } from '../../src/schema/schema.js';
import type { MatchRules } from '../../src/services/match-rules.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';

export const Note = defineMessage('note', t.object({ from: t.int(0, 63), text: t.string(40) }));
export const noteFactory = new MessageFactory([Note]);

/** n players exactly, whatever their skill. */
export function peerRules(players: number): MatchRules {
  return {
    minPlayers: players,
    maxPlayers: players,
    skillWindow: { initial: 1e6, perSecond: 0, max: 1e6 },
    fillWaitMs: Number.POSITIVE_INFINITY,
  };
}

/**
 * Authenticates one player per backend URL and matchmakes them all at once in `pool`, each with
 * its `properties[i]` when given.
 */
export async function matchPeers(
  urls: readonly string[],
  pool: string,
  properties: readonly Record<string, string>[] = [],
): Promise<PeerSeat[]> {
  return Promise.all(
    urls.map(async (url, i) => {
      const client = new BackendClient({ url });
      await client.auth({ name: `peer${i}` });
      return client.matchmakePeers({ pool, pollMs: 30, properties: properties[i] });
    }),
  );
}

/** Each seat's SecurePeerLinks on its own loopback UDP socket; close() closes links and sockets. */
export async function openLinks(seats: readonly PeerSeat[]) {
  const transports = await Promise.all(seats.map(() => UdpTransport.open()));
  const links = seats.map(
    (seat, i) => new SecurePeerLinks({ transport: transports[i], token: seat.peerToken }),
  );
  return {
    links,
    close() {
      for (const l of links) l.close();
      for (const transport of transports) transport.close();
    },
  };
}

/** Opens each seat's links, and keeps them and a PeerConnection per connected peer updated. */
export async function openPeers(seats: readonly PeerSeat[]) {
  const opened = await openLinks(seats);
  const links = opened.links;
  const connections = links.map(() => new Map<number, PeerConnection<typeof Note>>());
  const notes: string[][] = links.map(() => []);
  const started = performance.now();
  const timer = setInterval(() => {
    const now = (performance.now() - started) / 1000;
    // By position in `seats` (the slots may be any, a late joiner's alone say).
    for (const [i, l] of links.entries()) {
      const mine = connections[i];
      l.update(now);
      l.receive((peer, data) => mine.get(peer)?.receivePacket(data));
      for (const peer of l.connectedPeers())
        if (!mine.has(peer))
          mine.set(
            peer,
            new PeerConnection(
              l,
              peer,
              { factory: noteFactory, channels: [{ kind: 'reliable-ordered' }] },
              now,
            ),
          );
      for (const c of mine.values()) {
        c.update(now);
        for (let m = c.channels.receive(0); m !== null; m = c.channels.receive(0))
          if (m.is(Note)) notes[i].push(`${m.value.from}:${m.value.text}`);
      }
    }
  }, 10);
  return {
    links,
    connections,
    notes,
    allConnected: () => links.every((l) => l.connectedPeers().length === links.length - 1),
    close() {
      clearInterval(timer);
      opened.close();
    },
  };
}
