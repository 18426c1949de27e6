import type { PeerLinkEvent, PeerLinks } from '../links/peer-links.js';
import type { LockstepPeerStats } from './lockstep-options.js';

/**
 * The links as the session's PeerConnections see them: every datagram counted per peer, and
 * each peer's incoming datagrams held to a rate (a token bucket: `rate` a second, bursts of half
 * that), so a flooding peer costs a comparison per datagram past its share.
 */
export class PeerTraffic implements PeerLinks {
  readonly peers: LockstepPeerStats[];
  private readonly tokens: Float64Array;
  private readonly refilled: Float64Array;
  private readonly burst: number;

  constructor(
    readonly links: PeerLinks,
    private readonly rate: number,
  ) {
    this.peers = Array.from({ length: links.maxPeers }, () => ({
      datagramsSent: 0,
      datagramsReceived: 0,
      bytesSent: 0,
      bytesReceived: 0,
      refused: 0,
      flooded: 0,
      staleLists: 0,
      rttMs: 0,
    }));
    this.burst = Math.max(10, rate / 2);
    this.tokens = new Float64Array(links.maxPeers).fill(this.burst);
    this.refilled = new Float64Array(links.maxPeers);
  }

  get self(): number {
    return this.links.self;
  }

  get maxPeers(): number {
    return this.links.maxPeers;
  }

  get maxPayloadBytes(): number {
    return this.links.maxPayloadBytes;
  }

  send(peer: number, data: Uint8Array): void {
    this.links.send(peer, data);
    const stats = this.peers[peer];
    stats.datagramsSent++;
    stats.bytesSent += data.length;
  }

  /** Whether a datagram of `length` bytes from `peer` at `now` is within its rate (counted either way). */
  admit(peer: number, length: number, now: number): boolean {
    const stats = this.peers[peer];
    stats.datagramsReceived++;
    stats.bytesReceived += length;
    const tokens = Math.min(this.burst, this.tokens[peer] + (now - this.refilled[peer]) * this.rate);
    this.refilled[peer] = now;
    if (tokens < 1) {
      this.tokens[peer] = tokens;
      stats.flooded++;
      return false;
    }
    this.tokens[peer] = tokens - 1;
    return true;
  }

  receive(handler: (peer: number, data: Uint8Array) => void): number {
    return this.links.receive(handler);
  }

  pollEvent(): PeerLinkEvent | null {
    return this.links.pollEvent();
  }

  connectedPeers(): readonly number[] {
    return this.links.connectedPeers();
  }

  update(now: number): void {
    this.links.update(now);
  }

  close(): void {
    this.links.close();
  }
}
