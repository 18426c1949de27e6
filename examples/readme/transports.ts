/**
 * The README's transports and simulator example, verbatim between the region markers; what it leaves to the reader
 * is declared around it so that tsc checks it (test/project/readme-examples.test.ts).
 */
declare const bytes: Uint8Array;
declare const now: number;
declare const endpoint: { receivePacket(data: Uint8Array): void };
void MemoryNetwork;

// #region readme
import { MemoryNetwork, NetworkSimulator, toAddress } from 'ghostwire/transport';
import { UdpTransport } from 'ghostwire/node';

const udp = await UdpTransport.open({ address: '127.0.0.1:0', receiveBufferSize: 4 << 20 });
const lossy = new NetworkSimulator(udp, {
  seed: 42,
  outgoing: { latency: 50, jitter: 10, loss: 5, duplicates: 1, reorder: 2 }, // ms and percent
});
lossy.send(toAddress('127.0.0.1:40000'), bytes);       // the caller may reuse `bytes` at once
lossy.update(now);                                      // releases delayed datagrams (seconds)
lossy.receive((from, data) => endpoint.receivePacket(data), 256); // at most 256 per call
// #endregion
