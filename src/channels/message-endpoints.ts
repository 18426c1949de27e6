import { Client, type ClientOptions, ClientState } from '../connection/client.js';
import { Server, type ServerOptions } from '../connection/server.js';
import type { ReliableConfig } from '../packet/config.js';
import type { BlockProgress, PacketRecord } from './channel.js';
import type { ChannelConfig } from './config.js';
import { MessageConnection, type MessageCounters } from './connection.js';
import { LateAckAlarm } from './late-ack-alarm.js';
import type { MessageFactory, MessageType, ReceivedMessage } from './message.js';
import { CHANNEL_RELIABLE_DEFAULTS } from './packet-defaults.js';

/** What a connection's channels need: the factory and channel list both ends share. */
export interface ChannelOptions {
  factory: MessageFactory;
  channels: ChannelConfig[];
  /** Channel data per packet, bytes (default 1150: the datagram stays within 1200). */
  packetBudgetBytes?: number;
  /** The packet layer under the channels; packets are never fragmented (each fits the budget). */
  reliable?: Partial<ReliableConfig>;
}

/** Statistics of one connection: the link (from its ReliableEndpoint) and its channels. */
export interface ConnectionStats {
  rtt: number;
  packetLoss: number;
  sentKbps: number;
  receivedKbps: number;
  /**
   * Packets whose ack came back too late to be matched (after ackTimeout, or after the sent buffer
   * had reused their slot): what they carried was not freed by it. Rising: the round trip is beyond
   * what the packet-layer settings cover (docs/channels.md, "Long round trips").
   */
  lateAcks: number;
  messages: MessageCounters;
  queues: { send: number; receive: number }[];
}

/** The packet layer under channels: packets never fragmented (each fits the budget), sized for long round trips. */
function endpointConfig(options: ChannelOptions): Partial<ReliableConfig> {
  const budget = options.packetBudgetBytes ?? 1150;
  return { maxPacketSize: budget, fragmentAbove: budget, ...CHANNEL_RELIABLE_DEFAULTS, ...options.reliable };
}

function stats(
  connection: MessageConnection,
  endpoint: {
    rtt: number;
    packetLoss: number;
    sentKbps: number;
    receivedKbps: number;
    counters: { lateAcks: number };
  },
): ConnectionStats {
  return {
    rtt: endpoint.rtt,
    packetLoss: endpoint.packetLoss,
    sentKbps: endpoint.sentKbps,
    receivedKbps: endpoint.receivedKbps,
    lateAcks: endpoint.counters.lateAcks,
    messages: { ...connection.counters },
    queues: connection.queueDepths(),
  };
}

/** A MessageConnection with the endpoint's channel options (also checks them when called). */
function connectionFor(options: ChannelOptions): MessageConnection {
  return new MessageConnection({
    factory: options.factory,
    channels: options.channels,
    packetBudgetBytes: options.packetBudgetBytes,
  });
}

/**
 * A netcode Server whose connections carry channels: `send(client, channel, type, value)`,
 * `receive(client, channel)`. One packet per connection per `update`, packed to the budget.
 */
export class MessageServer {
  readonly server: Server;
  private readonly connections: (MessageConnection | null)[];
  private readonly lateAckAlarms: LateAckAlarm[];
  private readonly onLateAcks?: (clientIndex: number, lateAcks: number) => void;

  constructor(
    options: Omit<ServerOptions, 'onPacket' | 'onAcked' | 'onLost' | 'reliable'> &
      ChannelOptions & {
        /** Acks came back too late to be matched (ConnectionStats.lateAcks rose); at most once a second per client. */
        onLateAcks?: (clientIndex: number, lateAcks: number) => void;
      },
  ) {
    const create = () => connectionFor(options);
    create(); // checks the channel configuration now, not at the first connection
    this.connections = Array.from({ length: options.maxClients ?? 256 }, () => null);
    this.lateAckAlarms = this.connections.map(() => new LateAckAlarm());
    this.onLateAcks = options.onLateAcks;
    this.server = new Server({
      ...options,
      reliable: endpointConfig(options),
      onConnect: (index, clientId, userData) => {
        this.connections[index] = create();
        this.lateAckAlarms[index].reset();
        options.onConnect?.(index, clientId, userData);
      },
      onDisconnect: (index, clientId, reason) => {
        this.connections[index] = null;
        options.onDisconnect?.(index, clientId, reason);
      },
      onPacket: (index, data, offset, length) =>
        this.connections[index]?.readPacket(data, offset, length) === true,
      onAcked: (index, _sequence, record) => this.connections[index]?.acked(record as PacketRecord),
    });
  }

  private connection(clientIndex: number): MessageConnection {
    const c = this.connections[clientIndex];
    if (c === null || c === undefined)
      throw new RangeError(`MessageServer: client ${clientIndex} is not connected`);
    return c;
  }

  update(now: number): void {
    this.server.update(now);
    for (let i = 0; i < this.connections.length; i++) {
      const c = this.connections[i];
      if (c === null || !this.server.isConnected(i)) continue;
      const report = this.onLateAcks;
      if (report !== undefined)
        this.lateAckAlarms[i].check(this.server.endpoint(i).counters.lateAcks, now, (n) => report(i, n));
      const { data, record } = c.writePacket(now);
      this.server.send(i, data, data.length, record);
    }
  }

  send<T>(clientIndex: number, channel: number, type: MessageType<T>, value: T): void {
    this.connection(clientIndex).send(channel, type, value);
  }

  receive(clientIndex: number, channel: number): ReceivedMessage | null {
    return this.connection(clientIndex).receive(channel);
  }

  sendBlock(clientIndex: number, channel: number, data: Uint8Array): void {
    this.connection(clientIndex).sendBlock(channel, data);
  }

  blockProgress(clientIndex: number, channel: number): BlockProgress {
    return this.connection(clientIndex).blockProgress(channel);
  }

  stats(clientIndex: number): ConnectionStats {
    return stats(this.connection(clientIndex), this.server.endpoint(clientIndex));
  }
}

/** A netcode Client whose connection carries channels. */
export class MessageClient {
  readonly client: Client;
  private connection: MessageConnection | null = null;
  private readonly lateAckAlarm = new LateAckAlarm();
  private readonly onLateAcks?: (lateAcks: number) => void;

  constructor(
    options: Omit<ClientOptions, 'onPacket' | 'onAcked' | 'onLost' | 'reliable'> &
      ChannelOptions & {
        /** Acks came back too late to be matched (ConnectionStats.lateAcks rose); at most once a second. */
        onLateAcks?: (lateAcks: number) => void;
      },
  ) {
    const create = () => connectionFor(options);
    create();
    this.onLateAcks = options.onLateAcks;
    this.client = new Client({
      ...options,
      reliable: endpointConfig(options),
      onStateChange: (state, previous) => {
        // A fresh set of channels for every connection.
        this.connection = state === ClientState.Connected ? create() : null;
        if (state === ClientState.Connected) this.lateAckAlarm.reset();
        options.onStateChange?.(state, previous);
      },
      onPacket: (data, offset, length) => this.connection?.readPacket(data, offset, length) === true,
      onAcked: (_sequence, record) => this.connection?.acked(record as PacketRecord),
    });
  }

  get connected(): boolean {
    return this.connection !== null;
  }

  connect(token: Uint8Array, now: number): void {
    this.client.connect(token, now);
  }

  disconnect(): void {
    this.client.disconnect();
  }

  update(now: number): void {
    this.client.update(now);
    if (this.connection !== null && this.client.state === ClientState.Connected) {
      const report = this.onLateAcks;
      if (report !== undefined && this.client.endpoint)
        this.lateAckAlarm.check(this.client.endpoint.counters.lateAcks, now, report);
      const { data, record } = this.connection.writePacket(now);
      this.client.send(data, data.length, record);
    }
  }

  private channels(): MessageConnection {
    if (this.connection === null) throw new Error('MessageClient: not connected');
    return this.connection;
  }

  send<T>(channel: number, type: MessageType<T>, value: T): void {
    this.channels().send(channel, type, value);
  }

  receive(channel: number): ReceivedMessage | null {
    return this.connection?.receive(channel) ?? null;
  }

  sendBlock(channel: number, data: Uint8Array): void {
    this.channels().sendBlock(channel, data);
  }

  blockProgress(channel: number): BlockProgress {
    return this.connection?.blockProgress(channel) ?? { sending: null, receiving: null };
  }

  stats(): ConnectionStats {
    return stats(this.channels(), this.client.endpoint!);
  }
}
