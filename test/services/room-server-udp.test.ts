import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageClient } from '../../src/channels/index.js';
import { ClientState } from '../../src/connection/client.js';
import { generateConnectToken } from '../../src/connection/connect-token.js';
import { ClientMirror } from '../../src/replication/index.js';
import { EmbeddedDirectory, encodeSeatUserData, RoomServer, roomChannel } from '../../src/services/index.js';
import { UdpTransport } from '../../src/transport/udp-transport.js';
import { factory, mirroredRooms, PROTOCOL_ID, TestRoom, types } from '../support/room-scene.js';
import { until } from '../support/until.js';

describe('RoomServer over UDP on its own timers', () => {
  it('a client joins over UDP, heartbeats report it, stop tells it', async () => {
    const directory = new EmbeddedDirectory();
    const socket = await UdpTransport.open({ address: '127.0.0.1:0' });
    const privateKey = new Uint8Array(32).fill(3);
    const server = new RoomServer({
      directory,
      protocolId: PROTOCOL_ID,
      privateKey,
      transports: [{ kind: 'udp', transport: socket }],
      factory,
      channels: [roomChannel('replication'), { kind: 'reliable-ordered' }],
      maxClients: 8,
      heartbeatMs: 100,
      ttlMs: 1000,
    });
    TestRoom.log = [];
    server.define('test', TestRoom, { tickRate: 30 });
    const clientSocket = await UdpTransport.open({ address: '127.0.0.1:0' });
    let pump: ReturnType<typeof setInterval> | null = null;
    try {
      await server.start();
      const record = await directory.getProcess(server.processId);
      assert.deepEqual(record?.addresses, { udp: socket.localAddress });
      const created = await server.createRoom('test', { tag: 'u' });
      assert.ok(created.ok);
      const roomId = created.room.roomId;
      const reserved = await directory.reserveSeat(roomId, {
        seatId: 'udp-seat',
        userId: 'uma',
        clientId: '1',
        ttlMs: 5000,
      });
      assert.ok(reserved.ok);
      const mirror = new ClientMirror({ types, capacity: 64 });
      const client = new MessageClient({
        transport: clientSocket,
        factory,
        channels: [mirror.channel, { kind: 'reliable-ordered' }],
      });
      const start = performance.now();
      const token = generateConnectToken({
        protocolId: PROTOCOL_ID,
        privateKey,
        clientId: 1n,
        serverAddresses: [socket.localAddress],
        now: Math.floor(Date.now() / 1000),
        userData: encodeSeatUserData({ roomId, seatId: 'udp-seat' }),
      });
      client.connect(token, 0);
      pump = setInterval(() => client.update((performance.now() - start) / 1000), 1000 / 60);
      await until('the mirror to hold the room', 3000, () => mirroredRooms({ mirror }).length === 2);
      assert.deepEqual(mirroredRooms({ mirror }), ['u', 'u']);
      // A heartbeat period with the client seated and the room ticking (the room's first frames may
      // fall in a period of their own with no tick yet).
      await until('a heartbeat with the client and ticks', 3000, async () => {
        const load = (await directory.getProcess(server.processId))?.load;
        return load?.clients === 1 && load.tickMs > 0;
      });
      const load = server.load();
      assert.equal(load.rooms, 1);
      assert.equal(load.clients, 1);
      assert.ok(load.tickMaxMs >= load.tickMs, JSON.stringify(load));
      await server.stop();
      await until(
        'the client to hear of the stop',
        2000,
        () => client.client.state === ClientState.Disconnected,
      );
      assert.equal(await directory.getProcess(server.processId), null);
      assert.deepEqual(TestRoom.log, ['u: create', 'u: join uma', 'u: leave uma false', 'u: dispose']);
    } finally {
      if (pump !== null) clearInterval(pump);
      await server.stop();
      socket.close();
      clientSocket.close();
    }
  });
});
