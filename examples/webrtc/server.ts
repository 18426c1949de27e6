/**
 * docs/browsers-webrtc.md's server, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts); what it leaves to the reader is declared around it so that tsc
 * checks it.
 */
import type { ChannelConfig, MessageFactory } from 'ghostwire/channels';

declare const protocolId: bigint;
declare const privateKey: Uint8Array; // shared with the backend that issues connect tokens
declare const factory: MessageFactory;
declare const channels: ChannelConfig[];

// #region docs
import { serve } from '@hono/node-server';
import { createSignalingApp, WebRtcServerTransport } from 'ghostwire/webrtc';
import { MessageServer } from 'ghostwire/channels';

// One UDP port for every peer, and the signalling route on any HTTP port.
const rtc = new WebRtcServerTransport({ port: 40000, publicIp: '203.0.113.7' });
serve({ fetch: createSignalingApp(rtc).fetch, port: 8080 });

// Then a server as over UDP: tokens list rtc.localAddress (203.0.113.7:40000).
const server = new MessageServer({
  protocolId,
  privateKey,
  publicAddresses: [rtc.localAddress],
  transports: [rtc],
  factory,
  channels,
});
// #endregion

export { server };
