/**
 * The join path over the browsers' transports: a local fleet whose room server serves UDP,
 * WebSocket and WebRTC, each address in its process record; players ask the backend for a seat on
 * the transport they speak, connect over it, and meet in one room.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { BackendClient, type Seated } from '../../src/join/backend-client.js';
import { type LocalFleet, startLocalFleet } from '../../src/services/local-fleet.js';
import { roomChannel } from '../../src/services/room-channels.js';
import { toAddress } from '../../src/transport/address.js';
import { WebSocketClientTransport } from '../../src/transport/websocket-client.js';
import { factory, PROTOCOL_ID, Score, TestRoom } from '../support/room-scene.js';
import { connected, mirroredPlayers, Players, until } from '../support/services-players.js';
import { openRtcClient } from '../support/webrtc-loopback.js';

describe('the join path over WebSocket and WebRTC', () => {
  let fleet: LocalFleet;
  let players: Players;
  const errors: string[] = [];

  before(async () => {
    players = new Players();
    fleet = await startLocalFleet({
      // 'probe' for the seats the first test only asks for (reserved until they lapse), 'lobby' to play.
      rooms: Object.fromEntries(
        ['probe', 'lobby'].map((name) => [
          name,
          { type: TestRoom, defaults: { maxClients: 4, tickRate: 20 } },
        ]),
      ),
      protocolId: PROTOCOL_ID,
      factory,
      channels: [roomChannel('replication'), { kind: 'reliable-ordered' }],
      transports: ['udp', 'websocket', 'webrtc'],
      server: { onError: (error, where) => errors.push(`${where}: ${error}`) },
      backend: { rateLimit: false },
    });
  });
  after(async () => {
    players?.close();
    await fleet?.close();
  });

  const seatFor = async (
    who: string,
    transport: 'udp' | 'websocket' | 'webrtc',
    room = 'lobby',
  ): Promise<Seated> => {
    const client = new BackendClient({ url: fleet.url });
    await client.auth({ name: who });
    return client.joinOrCreate(room, { transport, options: { tag: 'mix' } });
  };

  it('lists an address per transport in the process record, and a seat carries the one asked for', async () => {
    const record = await fleet.directory.getProcess(fleet.servers[0].processId);
    assert.ok(record !== null);
    const { udp, websocket, webrtc, signalingUrl } = record.addresses;
    assert.equal(new Set([udp, websocket, webrtc]).size, 3, 'three ports');
    assert.match(signalingUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/rtc\/offer$/);
    const ws = await seatFor('ws', 'websocket', 'probe');
    assert.deepEqual([ws.transport, ws.serverAddress, ws.signalingUrl], ['websocket', websocket, undefined]);
    const rtc = await seatFor('rtc', 'webrtc', 'probe');
    assert.deepEqual([rtc.serverAddress, rtc.signalingUrl], [webrtc, signalingUrl]);
    assert.equal((await seatFor('udp', 'udp', 'probe')).serverAddress, udp);
  });

  it('a WebSocket, a UDP and a WebRTC player join one room, mirror it and see each other', async () => {
    const wsSeat = await seatFor('ada', 'websocket');
    const ada = await players.connect(
      wsSeat.connectToken,
      new WebSocketClientTransport({
        url: `ws://${wsSeat.serverAddress}/`,
        serverAddress: wsSeat.serverAddress,
        WebSocket,
      }),
    );
    await until('ada (WebSocket) to mirror her player', 5000, () => mirroredPlayers(ada).length === 1);
    assert.deepEqual(mirroredPlayers(ada), [{ room: 'mix', seat: 0, score: 0 }]);

    const udpSeat = await seatFor('bob', 'udp');
    assert.equal(udpSeat.roomId, wsSeat.roomId, 'the same room');
    const bob = await players.connect(udpSeat.connectToken);
    const rtcSeat = await seatFor('cy', 'webrtc');
    assert.equal(rtcSeat.roomId, wsSeat.roomId);
    // The Node polyfill's offerer sometimes fails on a loaded machine: opened with retries.
    const cy = await players.connect(
      rtcSeat.connectToken,
      await openRtcClient(rtcSeat.signalingUrl!, toAddress(rtcSeat.serverAddress)),
    );
    ada.messages.send(1, Score, { add: 5 });
    await until('bob (UDP) to connect', 5000, () => connected(bob));
    bob.messages.send(1, Score, { add: 7 });
    const scores = (p: typeof ada) =>
      mirroredPlayers(p)
        .map((g) => g.score)
        .sort((x, y) => x - y)
        .join();
    await until('all three to mirror all three, with ada’s and bob’s scores', 20_000, () =>
      [ada, bob, cy].every((p) => scores(p) === '0,5,7'),
    );
    assert.ok([ada, bob, cy].every(connected));
    assert.equal((await fleet.directory.getRoom(wsSeat.roomId))?.seats, 3);
    assert.deepEqual(errors, []);
  });
});

describe('startLocalFleet transports misuse', () => {
  it('throws RangeError at the call for none, an unknown kind, or a kind twice', async () => {
    const base = { rooms: { lobby: TestRoom }, protocolId: PROTOCOL_ID, factory };
    await assert.rejects(startLocalFleet({ ...base, transports: [] }), /at least one/);
    await assert.rejects(
      startLocalFleet({ ...base, transports: ['tcp' as 'udp'] }),
      /"tcp" is not udp, websocket or webrtc/,
    );
    await assert.rejects(
      startLocalFleet({ ...base, transports: ['websocket', 'websocket'] }),
      /listed twice/,
    );
  });
});
