/**
 * A MessageServer on a MemoryNetwork, on a clock the test advances, with connect tokens for it and
 * clients built the same way (the pure-JS AEAD, so no Node-only backend is needed).
 */
import {
  type AnyMessageType,
  type ChannelConfig,
  MessageClient,
  type MessageFactory,
  MessageServer,
  type MessageServerOptions,
  type UndeliveredReport,
} from '../../src/channels/index.js';
import { nobleAead } from '../../src/connection/aead.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import type { ReliableConfig } from '../../src/packet/config.js';
import type { DatagramTransport } from '../../src/transport/index.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';

const UNIX_START = 1_700_000_000;

export function messageSession<M extends AnyMessageType>(options: {
  protocolId: bigint;
  factory: MessageFactory<M>;
  channels: ChannelConfig[];
  maxClients?: number;
  onDisconnect?: MessageServerOptions<M>['onDisconnect'];
  onLateAcks?: (index: number, lateAcks: number) => void;
  reliable?: Partial<ReliableConfig>;
}) {
  const { protocolId, factory, channels } = options;
  const network = new MemoryNetwork();
  const privateKey = new Uint8Array(32).fill(Number(protocolId & 0xffn));
  const serverSocket = network.createTransport('10.0.0.100:1');
  const clock = { now: 0 };
  const server = new MessageServer({
    protocolId,
    privateKey,
    publicAddresses: [serverSocket.localAddress],
    transports: [serverSocket],
    aead: nobleAead,
    unixTime: () => UNIX_START + Math.floor(clock.now),
    factory,
    channels,
    maxClients: options.maxClients,
    onDisconnect: options.onDisconnect,
    onLateAcks: options.onLateAcks,
    reliable: options.reliable,
  });
  return {
    network,
    server,
    serverSocket,
    clock,
    /** One tick: the clock moves on `dt` (default 1/60 s), then the server and each client update. */
    tick: (clients: readonly { update(now: number): void }[], dt = 1 / 60) => {
      clock.now += dt;
      server.update(clock.now);
      for (const client of clients) client.update(clock.now);
    },
    /** A connect token for `clientId`, issued now (timeoutSeconds default 5). */
    token: (clientId: bigint, timeoutSeconds?: number) =>
      generateConnectToken({
        timeoutSeconds,
        protocolId,
        privateKey,
        clientId,
        serverAddresses: [serverSocket.localAddress],
        now: UNIX_START + Math.floor(clock.now),
        aead: nobleAead,
      }),
    /** A client with the session's factory and channels on `transport`. */
    client: (
      transport: DatagramTransport,
      extra: {
        onDisconnect?: (undelivered: UndeliveredReport, state: number) => void;
        onLateAcks?: (lateAcks: number) => void;
        reliable?: Partial<ReliableConfig>;
      } = {},
    ) => new MessageClient({ transport, aead: nobleAead, factory, channels, ...extra }),
  };
}
