/**
 * docs/browsers-webrtc.md's browser client, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts); what it leaves to the reader is declared around it so that tsc
 * checks it.
 */
import type { ChannelConfig, MessageFactory } from 'ghostwire/channels';

declare const factory: MessageFactory;
declare const channels: ChannelConfig[];
declare const connectToken: Uint8Array; // from your backend, over HTTPS

// #region docs
import { MessageClient } from 'ghostwire/channels';
import { toAddress, WebRtcClientTransport } from 'ghostwire/transport';

const transport = new WebRtcClientTransport({
  signalingUrl: 'https://game.example/rtc/offer',
  serverAddress: toAddress('203.0.113.7:40000'), // the address the connect token lists
});
await transport.opened; // rejects with the reason if the channel does not open
const client = new MessageClient({ transport, factory, channels });
client.connect(connectToken, performance.now() / 1000);
// #endregion

export { client };
