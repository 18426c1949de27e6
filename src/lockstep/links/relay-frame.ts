import { isPeerPacketKind, MAX_PEER_PACKET_BYTES, PEER_OVERHEAD_BYTES } from './peer-packet.js';
import {
  CHANNEL_MAC_BYTES,
  type ChannelCrypto,
  RELAY_HEADER_BYTES,
  RELAY_OVERHEAD_BYTES,
  RendezvousKind,
} from './rendezvous-wire.js';

/**
 * The relay's framing: 0x22 · seq u64 · target u8 · a sealed peer packet · MAC. The MAC (under the
 * sender's peer-to-rendezvous key, over everything before it) proves to the relay which registered
 * peer sent it; the peer packet inside stays sealed under the pair's key, so the relay forwards
 * bytes it can neither read nor forge. The relay sends the peer packet on unchanged.
 */
export const MAX_RELAY_FRAME_BYTES = MAX_PEER_PACKET_BYTES + RELAY_OVERHEAD_BYTES;

/** Where a peer writes the packet to relay inside the frame buffer. */
export const RELAY_INNER_OFFSET = RELAY_HEADER_BYTES;

/** Frames the peer packet already at out[RELAY_INNER_OFFSET, +innerLength); returns the frame's length. */
export function sealRelayFrame(
  crypto: ChannelCrypto,
  out: Uint8Array,
  target: number,
  innerLength: number,
  sequence: number,
  key: Uint8Array,
): number {
  out[0] = RendezvousKind.Relay;
  out[RELAY_HEADER_BYTES - 1] = target;
  return crypto.seal(out, 1, RELAY_HEADER_BYTES + innerLength, 0, sequence, key);
}

export type RelayFrameCheck = 'ok' | 'size' | 'mac' | 'inner';

/**
 * Checks a frame from the registered peer `sender` under its key: size, MAC, and that the packet
 * inside is a peer packet from `sender` to the frame's target (the relay cannot check more).
 */
export function checkRelayFrame(
  crypto: ChannelCrypto,
  data: Uint8Array,
  sender: number,
  key: Uint8Array,
): RelayFrameCheck {
  if (data.length < RELAY_OVERHEAD_BYTES + PEER_OVERHEAD_BYTES || data.length > MAX_RELAY_FRAME_BYTES)
    return 'size';
  if (!crypto.open(data, 1, data.length - CHANNEL_MAC_BYTES, key)) return 'mac';
  const inner = RELAY_HEADER_BYTES;
  const target = data[inner - 1];
  if (
    !isPeerPacketKind(data[inner]) ||
    data[inner + 1] !== sender ||
    data[inner + 2] !== target ||
    target === sender
  )
    return 'inner';
  return 'ok';
}

/** The target and the peer packet of a checked frame. */
export function relayFrameTarget(data: Uint8Array): number {
  return data[RELAY_HEADER_BYTES - 1];
}

export function relayFrameInner(data: Uint8Array): Uint8Array {
  return data.subarray(RELAY_HEADER_BYTES, data.length - CHANNEL_MAC_BYTES);
}
