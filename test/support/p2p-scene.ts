import { randomBytes } from 'node:crypto';
import type { PeerLinkEvent } from '../../src/lockstep/links/peer-links.js';
import { SecurePeerLinks, type SecurePeerLinksOptions } from '../../src/lockstep/links/secure-peer-links.js';
import { issuePeerToken } from '../../src/services/peer-token-issuer.js';
import { RendezvousServer } from '../../src/services/rendezvous-server.js';
import type { Address } from '../../src/transport/address.js';
import type { DatagramTransport } from '../../src/transport/transport.js';

export const P2P_PROTOCOL = 0x7032_7074_6573_74n;

/** A rendezvous and the backend key it shares, and a way to issue tokens for it. */
export function rendezvousOn(transport: DatagramTransport, unixTime?: () => number) {
  const privateKey = new Uint8Array(randomBytes(32));
  const server = new RendezvousServer({ transport, protocolId: P2P_PROTOCOL, privateKey, unixTime });
  const token = (
    sessionId: bigint,
    peer: number,
    maxPeers: number,
    extra: { timeoutSeconds?: number; now?: number; expireSeconds?: number } = {},
  ) =>
    issuePeerToken({
      protocolId: P2P_PROTOCOL,
      privateKey,
      sessionId,
      peer,
      maxPeers,
      rendezvousAddress: transport.localAddress,
      now: extra.now ?? Math.floor(Date.now() / 1000),
      timeoutSeconds: extra.timeoutSeconds,
      expireSeconds: extra.expireSeconds,
    });
  return { server, privateKey, token };
}

/** Links for peers 0..n-1 of one session on the given transports. */
export function peersOf(
  transports: readonly DatagramTransport[],
  token: (sessionId: bigint, peer: number, maxPeers: number) => Uint8Array,
  sessionId: bigint,
  maxPeers: number,
  options: Partial<SecurePeerLinksOptions> = {},
): SecurePeerLinks[] {
  return transports.map(
    (transport, peer) =>
      new SecurePeerLinks({ transport, token: token(sessionId, peer, maxPeers), ...options }),
  );
}

/** Events each links reported, in order. */
export function drainEvents(links: SecurePeerLinks): PeerLinkEvent[] {
  const events: PeerLinkEvent[] = [];
  for (let e = links.pollEvent(); e !== null; e = links.pollEvent()) events.push(e);
  return events;
}

/** A transport that only lets through datagrams from `allowed`: a firewall no hole punch crosses. */
export function onlyFrom(inner: DatagramTransport, allowed: Address): DatagramTransport {
  return {
    get localAddress() {
      return inner.localAddress;
    },
    get maxDatagramSize() {
      return inner.maxDatagramSize;
    },
    get closed() {
      return inner.closed;
    },
    stats() {
      return inner.stats();
    },
    send: (to, data) => inner.send(to, data),
    receive: (handler, max) =>
      inner.receive((from, data) => (from === allowed ? handler(from, data) : undefined), max),
    update: (now) => inner.update(now),
    close: () => inner.close(),
  };
}
