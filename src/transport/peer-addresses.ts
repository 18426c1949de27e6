import { type Address, formatAddress } from './address.js';

/**
 * Addresses for peers that reach a server through a stream or a channel rather than a socket of
 * their own (a WebSocket, a WebRTC data channel): netcode keys its clients by address, so each
 * peer gets one of its own for the transport's lifetime, in the unique-local IPv6 range
 * fd67:7771::/32 (never routed, never a real peer's), with the transport's port. Numbers are not
 * reused while the transport lives, so a late datagram of a closed peer can never reach a newer
 * one that took its address. A server may carry a WebSocket (TCP) and a WebRTC (UDP) transport on
 * the same port number: each kind of transport draws from its own space (the address's third group),
 * so their peers' addresses never collide (a collision made the server take a new peer for one it
 * already had, and ignore it).
 */
/** The address spaces of the transports that use PeerAddresses. */
export const PEER_SPACE = { websocket: 1, webrtc: 2 } as const;

export class PeerAddresses {
  private next = 1;

  /** `space`: which kind of transport (see PEER_SPACE), 0..65535. */
  constructor(
    private readonly port: number,
    private readonly space = 0,
  ) {
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new RangeError(`PeerAddresses: port must be an integer in [0, 65535], got ${port}`);
    if (!Number.isInteger(space) || space < 0 || space > 65535)
      throw new RangeError(`PeerAddresses: space must be an integer in [0, 65535], got ${space}`);
  }

  /** A new address, never handed out before by this pool. */
  allocate(): Address {
    const n = this.next++;
    // 2^48 peers before the groups run out: the counter stays a safe integer far beyond that.
    const g3 = Math.floor(n / 2 ** 32) & 0xffff;
    const g4 = Math.floor(n / 2 ** 16) & 0xffff;
    const g5 = n & 0xffff;
    const space = this.space.toString(16);
    return formatAddress(
      `fd67:7771:${space}::${g3.toString(16)}:${g4.toString(16)}:${g5.toString(16)}`,
      this.port,
    );
  }
}
