/**
 * The demo server (demo/server.ts) in Node, no browser needed: it serves the page, its bundled
 * script and connect tokens on one port and refuses anything else; a client built as the page
 * builds it (an ArenaBot over a WebSocketClientTransport, `ws`'s WebSocket standing in for the
 * browser's) connects with a token from GET /token, and its inputs move its avatar on the server.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { factory, type ServersAnswer, type TokenAnswer, WEBSOCKET_PATH } from '../../demo/protocol.js';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import { MessageClient, WebSocketClientTransport } from '../../src/node.js';
import { ARENA } from '../../tools/live-arena.js';
import { ArenaBot } from '../../tools/live-bot.js';

describe('the demo server', { timeout: 20_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemoServer({ host: '127.0.0.1', port: 0, bots: 2, seed: 7 });
  });
  after(() => demo.close());

  it('serves the page, its script and tokens; 404 elsewhere, 405 for other methods', async () => {
    const page = await fetch(demo.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<canvas id="arena"/);
    const script = await fetch(`${demo.url}client.js`);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.ok((await script.text()).length > 10_000);
    assert.equal((await fetch(`${demo.url}nothing`)).status, 404);
    assert.equal((await fetch(`${demo.url}token`, { method: 'POST' })).status, 405);
    const [a, b] = await Promise.all([token(), token()]);
    assert.notEqual(a.token, b.token, 'a fresh token each time');
    assert.notEqual(a.avatar, b.avatar, 'and an avatar number of its own');
    assert.equal(Buffer.from(a.token, 'base64').length, 2048, 'a netcode connect token');
  });

  it('a request target no URL parser takes is a 400, and the server goes on', async () => {
    const { port } = new URL(demo.url);
    const status = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET //[ HTTP/1.1\r\nHost: x\r\n\r\n'),
      );
      socket.once('data', (data) => {
        resolve(String(data).split('\r\n')[0]);
        socket.end();
      });
      socket.once('error', reject);
    });
    assert.equal(status, 'HTTP/1.1 400 Bad Request');
    assert.equal((await fetch(demo.url)).status, 200);
  });

  it('a client built as the page builds it connects over WebSocket and walks its avatar', async () => {
    const answer = await token();
    const bot = new ArenaBot(answer.avatar, () => client.client.endpoint?.rttSample ?? 0);
    const transport = new WebSocketClientTransport({
      url: `${demo.url.replace('http:', 'ws:').replace(/\/$/, '')}${WEBSOCKET_PATH}`,
      serverAddress: answer.serverAddress,
      WebSocket,
    });
    const client: MessageClient = new MessageClient({
      transport,
      factory,
      channels: [bot.mirror.channel, bot.sender.channel],
    });
    const now = () => performance.now() / 1000;
    client.connect(Uint8Array.from(Buffer.from(answer.token, 'base64')), now());
    const until = now() + 3;
    while (now() < until) {
      client.update(now());
      if (client.connected) bot.frame(now(), Number.NaN);
      await new Promise((resolve) => setTimeout(resolve, 1000 / 60));
    }
    assert.equal(client.connected, true, client.lastRejection ?? '');
    assert.ok(bot.mirror.size > 20, `${bot.mirror.size} ghosts`);
    const status = demo.status();
    assert.equal(status.bots, 2);
    const me = status.players.find((p) => p.avatar === answer.avatar);
    assert.ok(me !== undefined && me.place !== null, JSON.stringify(status));
    assert.ok(me.inputsTaken > 30, `inputs taken: ${me.inputsTaken}`);
    assert.ok(Math.hypot(me.place.x - ARENA / 2, me.place.y - ARENA / 2) > 5, JSON.stringify(me.place));
    client.disconnect();
    transport.close();
  });

  it('GET /servers lists both transports; a token lists the address of the one asked for', async () => {
    const servers = (await (await fetch(`${demo.url}servers`)).json()) as ServersAnswer;
    assert.ok(servers.webrtc !== null);
    // By default WebRTC's UDP port takes the HTTP (TCP) port's number: one host:port for both.
    assert.equal(servers.webrtc, servers.websocket);
    const rtc = (await (await fetch(`${demo.url}token?transport=webrtc`)).json()) as TokenAnswer;
    assert.equal(rtc.serverAddress, servers.webrtc);
    assert.equal((await token()).serverAddress, servers.websocket);
    const refused = await fetch(`${demo.url}rtc/offer`, { method: 'POST', body: '{"type":"offer"}' });
    assert.equal(refused.status, 400, 'the signalling route answers, and refuses an offer without SDP');
    assert.match(((await refused.json()) as { error: string }).error, /sdp/i);
  });

  it('without WebRTC (rtcPort null), a WebRTC token is a 404 with a reason', async () => {
    const plain = await startDemoServer({ host: '127.0.0.1', port: 0, bots: 0, rtcPort: null });
    try {
      assert.equal(((await (await fetch(`${plain.url}servers`)).json()) as ServersAnswer).webrtc, null);
      const response = await fetch(`${plain.url}token?transport=webrtc`);
      assert.equal(response.status, 404);
      assert.match(await response.text(), /no webrtc here/);
      assert.equal((await fetch(`${plain.url}rtc/offer`, { method: 'POST', body: '{}' })).status, 405);
    } finally {
      await plain.close();
    }
  });

  async function token(): Promise<TokenAnswer> {
    const response = await fetch(`${demo.url}token`);
    assert.equal(response.status, 200);
    return (await response.json()) as TokenAnswer;
  }
});
