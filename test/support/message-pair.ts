import type { ChannelConfig } from '../../src/channels/config.js';
import { MessageConnection } from '../../src/channels/connection.js';
import type { MessageFactory } from '../../src/channels/message.js';
import { ReliableEndpoint } from '../../src/packet/endpoint.js';
import { MemoryNetwork } from '../../src/transport/memory-transport.js';
import { type LinkConditions, NetworkSimulator } from '../../src/transport/simulator.js';

/** Two MessageConnections over ReliableEndpoints, joined by a seeded simulated link. */
export function messagePair(
  seed: number,
  factory: MessageFactory,
  channels: ChannelConfig[],
  conditions?: LinkConditions,
) {
  const network = new MemoryNetwork();
  const rawA = network.createTransport('10.0.0.1:1');
  const rawB = network.createTransport('10.0.0.2:1');
  const a = conditions
    ? new NetworkSimulator(rawA, { seed, outgoing: conditions, incoming: conditions })
    : rawA;
  const b = rawB;
  let now = 0;
  const side = (transport: typeof a, peer: string) => {
    const connection = new MessageConnection({ factory, channels });
    const endpoint = new ReliableEndpoint<number[]>(
      {
        transmit: (_s, data, length) => transport.send(peer as never, data.subarray(0, length)),
        process: (_s, data, offset, length) => connection.readPacket(data, offset, length),
        onAcked: (_s, record) => connection.acked(record!),
      },
      { rttHistorySize: 16, maxPacketSize: 2048, fragmentAbove: 2048 },
    );
    return { connection, endpoint, transport };
  };
  const A = side(a, '10.0.0.2:1');
  const B = side(b, '10.0.0.1:1');
  return {
    a: A,
    b: B,
    get now() {
      return now;
    },
    /** One tick: update, deliver what is due, then each side sends its packet. */
    step(dt = 1 / 60): void {
      now += dt;
      for (const s of [A, B]) {
        s.transport.update(now);
        s.endpoint.update(now);
        s.transport.receive((_from, data) => s.endpoint.receivePacket(data), 1024);
      }
      for (const s of [A, B]) {
        const { data, record } = s.connection.writePacket(now);
        s.endpoint.sendPacket(data, data.length, record);
      }
    },
  };
}
