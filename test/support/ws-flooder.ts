/**
 * A flood of tokenless WebSocket peers, run as a child process (so its own sending does not share
 * the measured server's event loop): `count` sockets, each from its own 127.0.0.x source address
 * starting at `firstHost`, sending `bytes`-byte binary frames as fast as the socket takes them
 * while flooding. Sockets the server closes or refuses are reopened. Controlled over IPC:
 * 'flood', 'quiet', 'stop'; it reports 'ready' once every socket has opened at least once.
 */
import { setPriority } from 'node:os';
import WebSocket from 'ws';

const [url, countText, firstHostText, bytesText] = process.argv.slice(2);
const count = Number(countText);
const firstHost = Number(firstHostText);
/** Bytes a socket may hold unsent before the pump waits for it (keeps the client's memory bounded). */
const HIGH_WATER = 1 << 18;
/**
 * 64 KB of masked binary frames of `bytes` bytes each, written to the TCP socket in one call: the
 * server reads the same frames as from ws.send, at a fraction of this process's CPU.
 */
const batch = frames(Number(bytesText), 1 << 16);
const framesPerBatch = batch.count;

function frames(bytes: number, total: number): { data: Buffer; count: number } {
  if (bytes > 125) throw new RangeError('frames: payloads up to 125 bytes (one length byte)');
  const one = Buffer.alloc(6 + bytes);
  one[0] = 0x82; // FIN, binary
  one[1] = 0x80 | bytes; // masked, length
  one.writeUInt32BE(0x1234abcd, 2);
  for (let i = 0; i < bytes; i++) one[6 + i] = 0x55 ^ one[2 + (i % 4)];
  const count = Math.floor(total / one.length);
  return { data: Buffer.concat(Array.from({ length: count }, () => one)), count };
}

let flooding = false;
let stopped = false;
let everOpened = 0;
let sent = 0;
const sockets = new Set<WebSocket>();

function open(host: number): void {
  if (stopped) return;
  const socket = new WebSocket(url, { localAddress: `127.0.0.${host}` });
  let opened = false;
  socket.on('open', () => {
    opened = true;
    sockets.add(socket);
    if (++everOpened === count) process.send?.('ready');
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    sockets.delete(socket);
    setTimeout(() => open(host), opened ? 0 : 20);
  });
}

function pump(): void {
  if (stopped) return;
  let any = false;
  if (flooding) {
    for (const socket of sockets) {
      if (socket.readyState !== WebSocket.OPEN) continue;
      const tcp = (socket as unknown as { _socket: import('node:net').Socket })._socket;
      if (tcp.writableLength < HIGH_WATER) {
        tcp.write(batch.data);
        sent += framesPerBatch;
        any = true;
      }
    }
  }
  // Sockets the server does not read fill up: then wait rather than spin (this process shares
  // the machine with the server it floods; remote flooders would not).
  if (any) setImmediate(pump);
  else setTimeout(pump, 5);
}

process.on('message', (message) => {
  if (message === 'flood') flooding = true;
  else if (message === 'quiet') flooding = false;
  else if (message === 'stop') {
    stopped = true;
    for (const socket of sockets) socket.terminate();
    process.send?.(`sent ${sent}`);
    process.disconnect();
  }
});

// Flooders are other machines: here they share the server's cores, so they run at the lowest
// priority, lest the test measure the flooder's own sending (and loopback's copying) rather than
// what the server does with the flood.
setPriority(19);
for (let i = 0; i < count; i++) open(firstHost + i);
pump();
