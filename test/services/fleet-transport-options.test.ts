/**
 * A local fleet's browser transports take their own options (webSocket, webRtc, webRtcSignaling),
 * over real sockets on loopback: players behind one NAT or campus address need a higher
 * maxPeersPerAddress than the default, which the fleet used to open every transport with.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { startLocalFleet } from '../../src/services/local-fleet.js';
import { factory, PROTOCOL_ID, TestRoom } from '../support/room-scene.js';

/** Opens an upgrade to `url`: the open socket, or the HTTP status it was refused with. */
function upgrade(url: string): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (request, response) => {
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    ws.once('error', reject);
  });
}

const rooms = { lobby: TestRoom };

describe('a local fleet passes the browser transports their options', () => {
  it('admits 17 WebSocket peers from one address with maxPeersPerAddress 17 (the default 16 refuses the 17th), refuses the 18th, and the WebRTC options reach its transport and route', async () => {
    const fleet = await startLocalFleet({
      rooms,
      protocolId: PROTOCOL_ID,
      factory,
      transports: ['websocket', 'webrtc'],
      webSocket: { maxPeersPerAddress: 17, handshakeTimeout: 60 },
      webRtc: { maxSdpBytes: 300 },
      webRtcSignaling: { maxBodyBytes: 1000 },
      backend: { rateLimit: false },
    });
    const sockets: WebSocket[] = [];
    try {
      const record = await fleet.directory.getProcess(fleet.servers[0].processId);
      assert.ok(record !== null);
      const { websocket, signalingUrl } = record.addresses;
      const url = `ws://${websocket}/`;
      for (let i = 0; i < 17; i++) {
        const opened = await upgrade(url);
        assert.ok(typeof opened !== 'number', `peer ${i + 1} of 17 refused with ${opened}`);
        sockets.push(opened);
      }
      assert.equal(await upgrade(url), 503, 'the 18th from the same address');

      const post = async (sdp: string) => {
        const response = await fetch(signalingUrl ?? '', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'offer', sdp }),
        });
        return response.status;
      };
      assert.equal(await post(`v=0${' '.repeat(400)}`), 413, 'an SDP over the fleet-set maxSdpBytes 300');
      assert.equal(await post(`v=0${' '.repeat(2000)}`), 413, 'a body over the route-set maxBodyBytes 1000');
    } finally {
      for (const socket of sockets) socket.terminate();
      await fleet.close();
    }
  });

  it('refuses options for a transport the fleet does not serve, at the call', async () => {
    await assert.rejects(
      startLocalFleet({
        rooms,
        protocolId: PROTOCOL_ID,
        factory,
        transports: ['udp'],
        webSocket: { maxPeersPerAddress: 64 },
      }),
      /webSocket: options given, but transports does not list 'websocket'/,
    );
    await assert.rejects(
      startLocalFleet({
        rooms,
        protocolId: PROTOCOL_ID,
        factory,
        transports: ['udp', 'websocket'],
        webRtc: { maxPeersPerAddress: 64 },
      }),
      /webRtc: options given, but transports does not list 'webrtc'/,
    );
  });
});
