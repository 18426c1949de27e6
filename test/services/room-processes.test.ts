import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MessageClient } from '../../src/channels/index.js';
import { ClientState } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ClientMirror } from '../../src/replication/index.js';
import {
  EmbeddedDirectory,
  encodeSeatUserData,
  PROCESS_GONE,
  ProcessManager,
} from '../../src/services/index.js';
import { type CreateRoomReply, processChannel, replyChannel } from '../../src/services/room-requests.js';
import { toAddress } from '../../src/transport/address.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { factory, mirroredRooms, PROTOCOL_ID, types } from '../support/room-scene.js';
import { until } from '../support/until.js';

const CHILD = fileURLToPath(new URL('../fixtures/room-server-child.js', import.meta.url));

describe('room servers as processes of a ProcessManager', () => {
  it('two processes host rooms for UDP clients; stopping one tells its clients and reports its rooms gone', async () => {
    const directory = new EmbeddedDirectory();
    const key = new Uint8Array(32);
    globalThis.crypto.getRandomValues(key);
    const pm = new ProcessManager({
      modulePath: CHILD,
      maxProcesses: 2,
      directory,
      env: { GW_ROOM_KEY: Buffer.from(key).toString('hex') },
      heartbeatIntervalMs: 200,
      heartbeatTimeoutMs: 3000,
      startupTimeoutMs: 20_000,
      killGraceMs: 2000,
      stdio: 'ignore',
    });
    const gone: string[] = [];
    await directory.subscribe(PROCESS_GONE, (message) => gone.push(message));
    const clients: { messages: MessageClient; mirror: ClientMirror; socket: UdpTransport }[] = [];
    const start = performance.now();
    const pump = setInterval(() => {
      for (const c of clients) c.messages.update((performance.now() - start) / 1000);
    }, 1000 / 60);
    try {
      const ids = await pm.start();
      await until(
        'both processes listed',
        10_000,
        async () => (await directory.listProcesses()).length === 2,
      );
      const rooms: { processId: string; roomId: string; address: string }[] = [];
      for (const [i, processId] of ids.entries()) {
        const requestId = `req-${i}`;
        const reply = new Promise<CreateRoomReply>((resolve) => {
          void directory.subscribe(replyChannel(requestId), (m) => resolve(JSON.parse(m)));
        });
        await directory.publish(
          processChannel(processId),
          JSON.stringify({ kind: 'create-room', requestId, name: 'test', options: { tag: `p${i}` } }),
        );
        const answer = await reply;
        assert.ok(answer.ok, JSON.stringify(answer));
        const record = await directory.getProcess(processId);
        rooms.push({ processId, roomId: answer.roomId, address: record!.addresses.udp! });
      }
      for (const [i, room] of rooms.entries()) {
        const seatId = `seat-${i}`;
        const reserved = await directory.reserveSeat(room.roomId, {
          seatId,
          userId: `u${i}`,
          clientId: `${i + 1}`,
          ttlMs: 10_000,
        });
        assert.ok(reserved.ok);
        const socket = await UdpTransport.open({ address: '127.0.0.1:0' });
        const mirror = new ClientMirror({ types, capacity: 64 });
        const messages = new MessageClient({
          transport: socket,
          factory,
          channels: [mirror.channel, { kind: 'reliable-ordered' }],
        });
        messages.connect(
          generateConnectToken({
            protocolId: PROTOCOL_ID,
            privateKey: key,
            clientId: BigInt(i + 1),
            serverAddresses: [toAddress(room.address)],
            now: Math.floor(Date.now() / 1000),
            userData: encodeSeatUserData({ roomId: room.roomId, seatId }),
          }),
          (performance.now() - start) / 1000,
        );
        clients.push({ messages, mirror, socket });
      }
      const view = (i: number) => mirroredRooms(clients[i]);
      await until(
        'each client to mirror its own room',
        10_000,
        () => view(0).length === 2 && view(1).length === 2,
      );
      assert.deepEqual(view(0), ['p0', 'p0']);
      assert.deepEqual(view(1), ['p1', 'p1']);
      await until('the load in the manager', 5000, () => pm.report().machine.clients === 2);
      assert.equal(pm.report().machine.rooms, 2);
      // One process drained: its player stays past the drain's 500 ms, so the manager stops it;
      // its client is told at once (netcode disconnect) and its rooms are reported gone.
      const outcome = await pm.drain(rooms[0].processId, 500);
      assert.equal(outcome.drained, false);
      assert.equal(outcome.code, 0, 'a clean exit');
      await until(
        'the first client to be told',
        5000,
        () => clients[0].messages.client.state === ClientState.Disconnected,
      );
      await until('PROCESS_GONE', 5000, () => gone.length === 1);
      assert.deepEqual(JSON.parse(gone[0]).roomIds, [rooms[0].roomId]);
      assert.equal(await directory.getRoom(rooms[0].roomId), null);
      assert.equal(clients[1].messages.client.state, ClientState.Connected, 'the other process plays on');
    } finally {
      clearInterval(pump);
      await pm.stop({ drain: false });
      for (const c of clients) c.socket.close();
    }
  });
});
