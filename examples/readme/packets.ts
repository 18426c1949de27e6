/**
 * The README's packet layer example, verbatim between the region markers; what it leaves to the reader
 * is declared around it so that tsc checks it (test/project/readme-examples.test.ts).
 */
declare const socket: { send(bytes: Uint8Array): void };
declare function handlePayload(data: Uint8Array, offset: number, length: number): boolean;
declare function markDelivered(id: number): void;
declare function requeue(id: number): void;
declare const received: Uint8Array[];
declare const payload: Uint8Array;
declare const now: number;

// #region readme
import { ReliableEndpoint } from 'ghostwire/packet';

const endpoint = new ReliableEndpoint<{ messageIds: number[] }>(
  {
    transmit: (sequence, data, length) => socket.send(data.subarray(0, length)), // valid during the call
    process: (sequence, data, offset, length) => handlePayload(data, offset, length), // false: refuse it
    onAcked: (sequence, record) => record?.messageIds.forEach(markDelivered),
    onLost: (sequence, record) => record?.messageIds.forEach(requeue),
  },
  { ackTimeout: 1 }, // defaults are the reference's: maxPacketSize 16 KiB, 256-entry buffers, …
);

// Each tick:
endpoint.update(now);                          // seconds; reports timeouts, refreshes stats
for (const datagram of received) endpoint.receivePacket(datagram);
endpoint.sendPacket(payload, payload.length, { messageIds: [1, 2] });
console.log(endpoint.rtt, endpoint.packetLoss, endpoint.sentKbps, endpoint.counters);
// #endregion
