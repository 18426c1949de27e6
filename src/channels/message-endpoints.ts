import { Client, type ClientOptions, ClientState } from '../connection/client.js';
import { Server, type ServerDisconnectReason, type ServerOptions } from '../connection/server.js';
import type { ReliableConfig } from '../packet/config.js';
import type { BlockProgress, PacketRecord } from './channel.js';
import { checkIndex } from './check-index.js';
import type { ChannelConfig, ResolvedChannelConfig } from './config.js';
import { type ConnectionStats, connectionStats, emptyStats, type LinkFigures } from './connection-stats.js';
import { LateAckAlarm } from './late-ack-alarm.js';
import type { AnyMessageType, Block, MessageFactory, MessageValue, ReceivedMessageOf } from './message.js';
import { MessageConnection, type UndeliveredReport } from './message-connection.js';
import { MessageScratch } from './message-scratch.js';
import { CHANNEL_RELIABLE_DEFAULTS } from './packet-defaults.js';

/**
 * What a connection's channels need: the factory and channel list both ends share. `M`, the
 * factory's message types, is inferred from `factory` and types `send` and `receive`.
 */
export interface ChannelOptions<M extends AnyMessageType = AnyMessageType> {
  factory: MessageFactory<M>;
  channels: ChannelConfig[];
  /** Channel data per packet, bytes (default 1150: the datagram stays within 1200). */
  packetBudgetBytes?: number;
  /** The packet layer under the channels; packets are never fragmented (each fits the budget). */
  reliable?: Partial<ReliableConfig>;
}

export interface MessageServerOptions<M extends AnyMessageType = AnyMessageType>
  extends Omit<ServerOptions, 'onPacket' | 'onAcked' | 'onLost' | 'reliable' | 'onDisconnect'>,
    ChannelOptions<M> {
  /** Acks came back too late to be matched (ConnectionStats.lateAcks rose); at most once a second per client. */
  onLateAcks?(clientIndex: number, lateAcks: number): void;
  /**
   * A client's connection ended. `undelivered` lists the reliable messages and blocks sent to it
   * and not acked, now discarded; `stats(clientIndex)` gives the connection's final figures
   * during this call (and zeros after it).
   */
  onDisconnect?(
    clientIndex: number,
    clientId: bigint,
    reason: ServerDisconnectReason,
    undelivered: UndeliveredReport,
  ): void;
}

export interface MessageClientOptions<M extends AnyMessageType = AnyMessageType>
  extends Omit<ClientOptions, 'onPacket' | 'onAcked' | 'onLost' | 'reliable'>,
    ChannelOptions<M> {
  /** Acks came back too late to be matched (ConnectionStats.lateAcks rose); at most once a second. */
  onLateAcks?(lateAcks: number): void;
  /**
   * The connection ended (`state` says why; called before onStateChange). `undelivered` lists
   * the reliable messages and blocks sent and not acked, now discarded; `stats()` gives the final
   * figures during this call and onStateChange's.
   */
  onDisconnect?(undelivered: UndeliveredReport, state: ClientState): void;
}

/** The messages `receive` returns for a factory's types: a union narrowed by `is` or `name`. */
type Received<M extends AnyMessageType> = ReceivedMessageOf<M | typeof Block>;

/** A connection with its link, kept readable by stats() while its disconnect callbacks run. */
interface Ended<M extends AnyMessageType> {
  connection: MessageConnection<M>;
  link: LinkFigures;
}

/** The packet layer under channels: packets never fragmented (each fits the budget), sized for long round trips. */
function endpointConfig(options: ChannelOptions): Partial<ReliableConfig> {
  const budget = options.packetBudgetBytes ?? 1150;
  return { maxPacketSize: budget, fragmentAbove: budget, ...CHANNEL_RELIABLE_DEFAULTS, ...options.reliable };
}

/**
 * The record a packet is sent with: none for a packet whose ack frees nothing, so the packet layer
 * keeps no record array for a connection that sends nothing reliable.
 */
function withRecord(record: PacketRecord): PacketRecord | undefined {
  return record.length === 0 ? undefined : record;
}

/** A MessageConnection with the endpoint's channel options (also checks them when called). */
function connectionFor<M extends AnyMessageType>(
  options: ChannelOptions<M>,
  clientIndex?: number,
  scratch?: MessageScratch,
  resolved?: readonly ResolvedChannelConfig[],
): MessageConnection<M> {
  return new MessageConnection({
    factory: options.factory,
    channels: options.channels,
    packetBudgetBytes: options.packetBudgetBytes,
    clientIndex,
    scratch,
    resolved,
  });
}

/**
 * A netcode Server whose connections carry channels: `send(client, channel, type, value)`,
 * `receive(client, channel)`, `broadcast(channel, type, value)`. One packet per connection per
 * `update`, packed to the budget. Every index argument is checked: a client index or channel
 * that is not an integer in range throws (TypeError / RangeError naming the argument).
 */
export class MessageServer<M extends AnyMessageType = AnyMessageType> {
  readonly server: Server;
  private readonly connections: (MessageConnection<M> | null)[];
  private readonly links: (LinkFigures | null)[];
  /** Encodes broadcasts once for every connection (same factory and channels); never sends. */
  private readonly encoder: MessageConnection<M>;
  private readonly ended = new Map<number, Ended<M>>();
  private readonly lateAckAlarms: LateAckAlarm[];
  private readonly onLateAcks?: (clientIndex: number, lateAcks: number) => void;

  constructor(options: MessageServerOptions<M>) {
    // Built now: checks the channel configuration before the first connection.
    this.encoder = connectionFor(options);
    // One set of packet streams for every connection: update, send and receive use one at a time.
    const scratch = new MessageScratch(this.encoder.packetBudgetBytes);
    // And one copy of the resolved channel configs (read only).
    const resolved = this.encoder.channels.map((channel) => Object.freeze(channel.config));
    this.connections = Array.from({ length: options.maxClients ?? 256 }, () => null);
    this.links = this.connections.map(() => null);
    this.lateAckAlarms = this.connections.map(() => new LateAckAlarm());
    this.onLateAcks = options.onLateAcks;
    this.server = new Server({
      ...options,
      reliable: endpointConfig(options),
      onConnect: (index, clientId, userData) => {
        this.connections[index] = connectionFor(options, index, scratch, resolved);
        this.links[index] = this.server.endpoint(index);
        this.lateAckAlarms[index].reset();
        options.onConnect?.(index, clientId, userData);
      },
      onDisconnect: (index, clientId, reason) => {
        const connection = this.connections[index];
        const link = this.links[index];
        this.connections[index] = null;
        this.links[index] = null;
        if (connection === null || link === null) return;
        this.ended.set(index, { connection, link });
        try {
          options.onDisconnect?.(index, clientId, reason, connection.undelivered());
        } finally {
          this.ended.delete(index);
          connection.close();
        }
      },
      onPacket: (index, data, offset, length) =>
        this.connections[index]?.readPacket(data, offset, length) === true,
      onAcked: (index, _sequence, record) => {
        if (record !== undefined) this.connections[index]?.acked(record as PacketRecord);
      },
    });
  }

  private connection(where: string, clientIndex: number): MessageConnection<M> {
    const c = this.connections[checkIndex(where, 'clientIndex', clientIndex, this.connections.length)];
    if (c === null) throw new RangeError(`${where}: client ${clientIndex} is not connected`);
    return c;
  }

  update(now: number): void {
    this.server.update(now);
    for (let i = 0; i < this.connections.length; i++) {
      const c = this.connections[i];
      if (c === null || !this.server.isConnected(i)) continue;
      const report = this.onLateAcks;
      if (report !== undefined) {
        const late = this.lateAckAlarms[i].due(this.server.endpoint(i).stats().lateAcks, now);
        if (late > 0) report(i, late);
      }
      if (c.observesLink) {
        const endpoint = this.server.endpoint(i);
        c.observeLink(endpoint.rttSampleMs, endpoint.packetLoss, now);
      }
      const { data, record } = c.writePacket(now);
      this.server.send(i, data, data.length, withRecord(record));
    }
  }

  /** Queues a message to a client; returns its id in the channel (see UndeliveredReport). */
  send<K extends M>(clientIndex: number, channel: number, type: K, value: MessageValue<K>): number {
    return this.connection('MessageServer.send', clientIndex).send(channel, type, value);
  }

  /**
   * Queues one message to every connected client (but `except`, a client index) on a channel:
   * serialized once, the same bytes queued on each connection. All or nothing: if any of those
   * clients' send queue on the channel is full, it throws a RangeError naming the client and
   * queues nothing, so no client misses a message the others got. Returns how many clients it
   * was queued for (0 with nobody connected; the value is still checked). The ids differ per
   * client: to match an UndeliveredReport, `send` to each client instead.
   */
  broadcast<K extends M>(channel: number, type: K, value: MessageValue<K>, except?: number): number {
    const where = 'MessageServer.broadcast';
    if (except !== undefined) checkIndex(where, 'except', except, this.connections.length);
    const message = this.encoder.encode(channel, type, value);
    const connections = this.connections;
    for (let i = 0; i < connections.length; i++) {
      const c = connections[i];
      if (c !== null && i !== except && !c.hasRoom(channel)) {
        throw new RangeError(
          `${where}: client ${i}'s channel ${channel} send queue is full (sendQueueSize ${c.channels[channel].config.sendQueueSize}); nothing was queued to any client`,
        );
      }
    }
    let count = 0;
    for (let i = 0; i < connections.length; i++) {
      const c = connections[i];
      if (c === null || i === except) continue;
      c.sendEncoded(channel, message);
      count++;
    }
    return count;
  }

  receive(clientIndex: number, channel: number): Received<M> | null {
    return this.connection('MessageServer.receive', clientIndex).receive(channel);
  }

  /** Queues a block to a client on a reliable-ordered channel; returns its id in the channel. */
  sendBlock(clientIndex: number, channel: number, data: Uint8Array): number {
    return this.connection('MessageServer.sendBlock', clientIndex).sendBlock(channel, data);
  }

  blockProgress(clientIndex: number, channel: number): BlockProgress {
    return this.connection('MessageServer.blockProgress', clientIndex).blockProgress(channel);
  }

  /** Why the last packet from this client the channels refused was refused; null when none was (or no client). */
  lastRejection(clientIndex: number): string | null {
    const c =
      this.connections[
        checkIndex('MessageServer.lastRejection', 'clientIndex', clientIndex, this.connections.length)
      ];
    return c?.lastRejection ?? null;
  }

  /**
   * A slot's figures: live while a client is connected, final inside onDisconnect (`state:
   * 'ended'`), zeros for an empty slot (`state: 'disconnected'`).
   */
  stats(clientIndex: number): ConnectionStats {
    checkIndex('MessageServer.stats', 'clientIndex', clientIndex, this.connections.length);
    const c = this.connections[clientIndex];
    if (c !== null) return connectionStats('connected', c, this.links[clientIndex]!);
    const ended = this.ended.get(clientIndex);
    if (ended !== undefined) return connectionStats('ended', ended.connection, ended.link);
    return emptyStats('disconnected', this.encoder.channels.length);
  }
}

/** A netcode Client whose connection carries channels; index arguments are checked as the server's. */
export class MessageClient<M extends AnyMessageType = AnyMessageType> {
  readonly client: Client;
  private connection: MessageConnection<M> | null = null;
  private link: LinkFigures | null = null;
  private ended: Ended<M> | null = null;
  private report: UndeliveredReport | null = null;
  private readonly channelCount: number;
  private readonly lateAckAlarm = new LateAckAlarm();
  private readonly onLateAcks?: (lateAcks: number) => void;

  constructor(options: MessageClientOptions<M>) {
    this.onLateAcks = options.onLateAcks;
    this.channelCount = connectionFor(options).channels.length; // checks the configuration now
    this.client = new Client({
      ...options,
      reliable: endpointConfig(options),
      onStateChange: (state, previous) => {
        if (state === ClientState.Connected) {
          // A fresh set of channels for every connection.
          this.connection = connectionFor(options, 0);
          this.link = this.client.endpoint;
          this.report = null;
          this.lateAckAlarm.reset();
        } else if (this.connection !== null && this.link !== null) {
          const ended = { connection: this.connection, link: this.link };
          this.connection = null;
          this.link = null;
          this.ended = ended;
          ended.connection.close();
          try {
            this.report = ended.connection.undelivered();
            options.onDisconnect?.(this.report, state);
            options.onStateChange?.(state, previous);
          } finally {
            if (this.ended === ended) this.ended = null;
          }
          return;
        }
        options.onStateChange?.(state, previous);
      },
      onPacket: (data, offset, length) => this.connection?.readPacket(data, offset, length) === true,
      onAcked: (_sequence, record) => {
        if (record !== undefined) this.connection?.acked(record as PacketRecord);
      },
    });
  }

  get connected(): boolean {
    return this.connection !== null;
  }

  /**
   * What the last connection to end had sent and not had acked (the report onDisconnect got);
   * null before any connection ended and once a new one is made.
   */
  get lastUndelivered(): UndeliveredReport | null {
    return this.report;
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
      if (report !== undefined && this.client.endpoint) {
        const late = this.lateAckAlarm.due(this.client.endpoint.stats().lateAcks, now);
        if (late > 0) report(late);
      }
      const { data, record } = this.connection.writePacket(now);
      this.client.send(data, data.length, withRecord(record));
    }
  }

  /**
   * Why the last packet the channels refused was refused (a bad replication section, a message
   * outside its schema…), in this connection or the one that just ended; null when none was.
   */
  get lastRejection(): string | null {
    return (this.connection ?? this.ended?.connection)?.lastRejection ?? null;
  }

  private channels(where: string, channel: number): MessageConnection<M> {
    checkIndex(where, 'channel', channel, this.channelCount);
    if (this.connection === null) throw new Error(`${where}: not connected`);
    return this.connection;
  }

  /** Queues a message to the server; returns its id in the channel (see UndeliveredReport). */
  send<K extends M>(channel: number, type: K, value: MessageValue<K>): number {
    return this.channels('MessageClient.send', channel).send(channel, type, value);
  }

  /** The next message on a channel, or null (always null when not connected). */
  receive(channel: number): Received<M> | null {
    checkIndex('MessageClient.receive', 'channel', channel, this.channelCount);
    return this.connection?.receive(channel) ?? null;
  }

  /** Queues a block on a reliable-ordered channel; returns its id in the channel. */
  sendBlock(channel: number, data: Uint8Array): number {
    return this.channels('MessageClient.sendBlock', channel).sendBlock(channel, data);
  }

  blockProgress(channel: number): BlockProgress {
    checkIndex('MessageClient.blockProgress', 'channel', channel, this.channelCount);
    return this.connection?.blockProgress(channel) ?? { sending: null, receiving: null };
  }

  /**
   * The connection's figures: live while connected, final inside onDisconnect and the
   * onStateChange that ends it (`state: 'ended'`), zeros otherwise (`disconnected`, `connecting`).
   */
  stats(): ConnectionStats {
    if (this.connection !== null && this.link !== null)
      return connectionStats('connected', this.connection, this.link);
    if (this.ended !== null) return connectionStats('ended', this.ended.connection, this.ended.link);
    return emptyStats(
      this.client.state > ClientState.Disconnected ? 'connecting' : 'disconnected',
      this.channelCount,
    );
  }
}
