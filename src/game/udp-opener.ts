/** Node's UDP for GameClient: `ghostwire/node` imports this, which registers it. */
import { parseAddress } from '../transport/address.js';
import { UdpTransport } from '../transport/udp-transport.js';
import { registerUdpOpener } from './transport-openers.js';

registerUdpOpener(async (serverAddress) => {
  // A socket of the server's family, on the loopback when the server is on it.
  const server = parseAddress(serverAddress);
  const v6 = server?.family === 6;
  const loopback = serverAddress.startsWith('127.') || serverAddress.startsWith('[::1]');
  const address = v6 ? (loopback ? '[::1]:0' : '[::]:0') : loopback ? '127.0.0.1:0' : '0.0.0.0:0';
  // One server: a connected socket sends without a per-datagram address lookup.
  return UdpTransport.open({ address, connectToPeer: true });
});
