import type { ReliableConfig } from '../packet/config.js';

/**
 * The packet-layer settings MessageServer / MessageClient use under channels, sized for long round
 * trips (`reliable` overrides them). Channels resend on their own timer and use acks only to free what a packet carried,
 * so an ack must still be matched after the longest round trip we support: Fiedler's extremes,
 * 10 s ± 2 s each way, a 24 s round trip. An ack is matched only while its packet is within
 * ackTimeout and still in the sent buffer: 30 s, and 2048 packets (34 s at 60 packets/s). The
 * received buffer (512: 8.5 s at 60/s) bounds how late a reordered packet is still taken rather
 * than dropped as stale: ±2 s of jitter reorders by 4 s. The buffers grow only with what is in flight, so
 * an idle endpoint holds ~6 KB at these settings as at the reference's (bench suite `memory`);
 * the statistics are tallies over 256 sequences whatever the buffers. docs/channels.md, "Long round trips".
 */
export const CHANNEL_RELIABLE_DEFAULTS: Readonly<Partial<ReliableConfig>> = Object.freeze({
  ackTimeout: 30,
  sentPacketsBufferSize: 2048,
  receivedPacketsBufferSize: 512,
});
