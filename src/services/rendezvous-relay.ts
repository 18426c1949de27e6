import { readU64 } from '../connection/bytes.js';
import { PEER_OVERHEAD_BYTES } from '../lockstep/links/peer-packet.js';
import {
  checkRelayFrame,
  MAX_RELAY_FRAME_BYTES,
  relayFrameInner,
  relayFrameTarget,
} from '../lockstep/links/relay-frame.js';
import { type ChannelCrypto, RELAY_OVERHEAD_BYTES } from '../lockstep/links/rendezvous-wire.js';
import type { DatagramTransport } from '../transport/transport.js';
import type { Registration } from './rendezvous-registration.js';

const MIN_RELAY_FRAME_BYTES = RELAY_OVERHEAD_BYTES + PEER_OVERHEAD_BYTES;

export interface RelayOptions {
  /** Packets a peer may relay per second, sustained (default 1000: 60 Hz to 16 peers). */
  packetsPerSecond: number;
  /** Packets a peer may relay at once (default 200). */
  burst: number;
}

/** Relay frames refused, by reason, and frames forwarded. */
export interface RelayCounters {
  forwarded: number;
  /** Shorter or longer than any frame. */
  size: number;
  /** A sequence the sender already used. */
  replay: number;
  /** Not authenticated by the registered sender's key. */
  mac: number;
  /** The packet inside is not a peer packet from the sender to the frame's target. */
  inner: number;
  /** The target is not a registered peer of the sender's session. */
  noTarget: number;
  /** The target has not yet proven it receives at its address (it could be a spoofed one). */
  unprovenTarget: number;
  /** The sender was over its rate. */
  rateLimited: number;
}

/**
 * The relay: forwards the sealed peer packet inside a frame from a registered peer to another
 * registered peer of the same session, unchanged. It checks who sent the frame (the MAC under the
 * sender's own rendezvous key) but cannot read or forge the peer packet, sealed under a pair key
 * the relay only handed out. Size, rate and target are bounded; every refusal is counted.
 */
export class Relay {
  readonly counters: RelayCounters = {
    forwarded: 0,
    size: 0,
    replay: 0,
    mac: 0,
    inner: 0,
    noTarget: 0,
    unprovenTarget: 0,
    rateLimited: 0,
  };

  constructor(
    private readonly transport: DatagramTransport,
    private readonly crypto: ChannelCrypto,
    private readonly options: RelayOptions,
  ) {}

  /** A relay frame from `sender` (found by its address); `session` holds its session's registrations by peer index. */
  forward(
    sender: Registration,
    data: Uint8Array,
    session: readonly (Registration | undefined)[],
    now: number,
  ): void {
    // Only an authenticated frame is charged to the sender's budget: junk with its address as
    // source (anyone can send that) is counted, and cannot use up the budget of the real peer.
    if (data.length < MIN_RELAY_FRAME_BYTES || data.length > MAX_RELAY_FRAME_BYTES) {
      this.counters.size++;
      sender.relayFailures++;
      return;
    }
    const sequence = readU64(data, 1);
    if (sender.replay.alreadyReceived(sequence)) {
      this.counters.replay++;
      sender.relayFailures++;
      return;
    }
    const check = checkRelayFrame(this.crypto, data, sender.peer, sender.key.peerToRendezvousKey);
    if (check !== 'ok') {
      this.counters[check]++;
      sender.relayFailures++;
      return;
    }
    sender.replay.advance(sequence);
    if (!sender.takeRelayToken(now, this.options.burst, this.options.packetsPerSecond)) {
      this.counters.rateLimited++;
      return;
    }
    sender.lastHeard = now;
    const target = session[relayFrameTarget(data)];
    if (target === undefined) {
      this.counters.noTarget++;
      return;
    }
    if (!target.proven) {
      this.counters.unprovenTarget++;
      return;
    }
    this.transport.send(target.address, relayFrameInner(data));
    this.counters.forwarded++;
  }
}
