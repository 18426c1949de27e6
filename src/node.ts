/**
 * `ghostwire/node`: everything in the browser-safe entry point plus the transports that need
 * Node's modules (UDP sockets).
 */
export * from './index.js';
export { UdpTransport, type UdpTransportOptions } from './transport/udp-transport.js';
