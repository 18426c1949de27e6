import type { PacketRecord } from '../../channels/channel.js';
import type { AnyMessageType } from '../../channels/message.js';
import { MessageConnection } from '../../channels/message-connection.js';
import type { ChannelOptions } from '../../channels/message-endpoints.js';
import { CHANNEL_RELIABLE_DEFAULTS } from '../../channels/packet-defaults.js';
import { ReliableEndpoint } from '../../packet/reliable-endpoint.js';
import type { PeerLinks } from './peer-links.js';

/**
 * The channels to one other peer of a session: a packet layer (acks, RTT, loss) and a
 * MessageConnection over PeerLinks, so lockstep and rollback sessions get reliable messages,
 * blocks (a late joiner's snapshot) and custom channels that learn acks (redundant turn
 * commands, inputs) exactly as client and server do. One per remote peer; `update` writes one
 * packet (call it once per tick), `receivePacket` takes the datagrams the links deliver from it.
 */
export class PeerConnection<M extends AnyMessageType = AnyMessageType> {
  readonly endpoint: ReliableEndpoint<PacketRecord>;
  readonly channels: MessageConnection<M>;

  constructor(
    readonly links: PeerLinks,
    readonly peer: number,
    options: ChannelOptions<M>,
    now: number,
  ) {
    const budget = Math.min(options.packetBudgetBytes ?? 1150, links.maxPayloadBytes - 16);
    this.channels = new MessageConnection<M>({
      factory: options.factory,
      channels: options.channels,
      packetBudgetBytes: budget,
      clientIndex: peer,
    });
    this.endpoint = new ReliableEndpoint<PacketRecord>(
      {
        transmit: (_sequence, data, length) => links.send(peer, data.subarray(0, length)),
        process: (_sequence, data, offset, length) => this.channels.readPacket(data, offset, length),
        onAcked: (_sequence, record) => {
          if (record !== undefined) this.channels.acked(record);
        },
      },
      { maxPacketSize: budget, fragmentAbove: budget, ...CHANNEL_RELIABLE_DEFAULTS, ...options.reliable },
      now,
    );
  }

  /** Round trip to this peer, ms (the packet layer's smoothed figure; 0 before the first ack). */
  get rttMs(): number {
    return this.endpoint.rttMs;
  }

  /** A datagram the links delivered from this peer. Garbage is refused and counted, never thrown. */
  receivePacket(data: Uint8Array): void {
    this.endpoint.receivePacket(data);
  }

  /** Advances the packet layer and sends this tick's packet. */
  update(now: number): void {
    this.endpoint.update(now);
    if (this.channels.observesLink)
      this.channels.observeLink(this.endpoint.rttSampleMs, this.endpoint.packetLoss, now);
    const { data, record } = this.channels.writePacket(now);
    this.endpoint.sendPacket(data, data.length, record.length === 0 ? undefined : record);
  }

  close(): void {
    this.channels.close();
  }
}
