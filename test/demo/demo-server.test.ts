/**
 * The demo server (demo/server.ts) in Node, no browser needed: one GameServer serves the page, its
 * bundled script and the join endpoint on its HTTP port and refuses anything else; a GameClient
 * over WebSocket (`ws`'s WebSocket standing in for the browser's) joins as the page does, sees the
 * orbs and the bots, and its inputs walk its avatar on the server; the bots' zaps are judged
 * against the orbs as each bot saw them (lag compensation), so nearly all of them hit.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { ARENA, arena, ORBS } from '../../demo/game.js';
import { type DemoServer, startDemoServer } from '../../demo/server.js';
import type { GameJoinAnswer } from '../../src/game/game-join.js';
import { GameClient } from '../../src/node.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the demo server', { timeout: 40_000 }, () => {
  let demo: DemoServer;
  before(async () => {
    demo = await startDemoServer({ host: '127.0.0.1', port: 0, bots: 2, seed: 7 });
  });
  after(() => demo.close());

  it('serves the page, its script, join tokens and no zones; 404 elsewhere, 405 for other methods', async () => {
    const page = await fetch(demo.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<canvas id="arena"/);
    const script = await fetch(`${demo.url}client.js`);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.ok((await script.text()).length > 10_000);
    assert.equal((await fetch(`${demo.url}nothing`)).status, 404);
    const zones = await fetch(`${demo.url}zones`);
    assert.equal(zones.status, 200, 'the page asks for zones: no 404 in its console');
    assert.equal(await zones.json(), null, 'no zones: the page draws no borders');
    assert.equal((await fetch(demo.url, { method: 'POST' })).status, 405);
    assert.equal((await fetch(`${demo.url}ghostwire/join`, { method: 'POST' })).status, 405);
    const [a, b] = await Promise.all([join(), join()]);
    assert.notEqual(a.token, b.token, 'a fresh token each time');
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

  it('a GameClient over WebSocket joins as the page does, sees orbs and bots, and walks its avatar', async () => {
    const client = await GameClient.connect(arena, demo.url, { transport: 'websocket', WebSocket });
    try {
      const until = performance.now() + 2500;
      while (performance.now() < until) {
        client.update({ dx: 1, dy: 0, zap: false, aimX: 0, aimY: 0 });
        await sleep(1000 / 60);
      }
      assert.equal(client.status, 'connected', client.statusReason ?? '');
      const types = client.entities.map((e) => e.type);
      assert.equal(types.filter((type) => type === 'orb').length, ORBS);
      assert.equal(types.filter((type) => type === 'avatar').length, 2, 'the two bots');
      const status = demo.status();
      assert.equal(status.bots, 2);
      const me = status.players.find((p) => p.avatar === client.me?.id);
      assert.ok(me !== undefined && me.place !== null, JSON.stringify(status));
      assert.ok(me.inputsTaken > 30, `inputs taken: ${me.inputsTaken}`);
      assert.ok(me.place.x - ARENA / 2 > 5, `walked right from the centre: ${JSON.stringify(me.place)}`);
      assert.equal(me.place.y, ARENA / 2, 'and not up or down');
      assert.ok(Math.abs(client.me!.state.x - me.place.x) < 2, 'the page predicts what the server holds');
    } finally {
      client.close();
    }
  });

  it("the bots' zaps are judged on the server against the orbs as each saw them, and each hit scores", async (t) => {
    const until = performance.now() + 15_000;
    while (demo.status().zaps.zaps < 10 && performance.now() < until) await sleep(200);
    const { zaps } = demo.status();
    const scores = demo.game.simulation.players.map((p) => (p.state as { score: number } | null)?.score ?? 0);
    t.diagnostic(`${JSON.stringify(zaps)}; scores ${scores.join(' ')}`);
    assert.ok(zaps.zaps >= 10, `${zaps.zaps} zaps`);
    // A miss: another bot zapped the same orb first (it moved away), or the orb was shown a frame old.
    assert.ok(zaps.hits >= 0.5 * zaps.zaps, `${zaps.hits} hits of ${zaps.zaps} zaps`);
    assert.equal(
      scores.reduce((a, b) => a + b, 0),
      demo.status().zaps.hits,
      'a point for each hit',
    );
  });

  it('the join answer lists WebSocket and WebRTC; the WebRTC offer route answers', async () => {
    const answer = await join();
    assert.equal(answer.game, arena.name);
    assert.equal(answer.websocket, '/ghostwire/ws');
    assert.equal(answer.webrtc, '/ghostwire/rtc');
    const refused = await fetch(`${demo.url}ghostwire/rtc`, { method: 'POST', body: '{"type":"offer"}' });
    assert.equal(refused.status, 400, 'the signalling route answers, and refuses an offer without SDP');
    assert.match(((await refused.json()) as { error: string }).error, /sdp/i);
  });

  it('without WebRTC (webrtc: false), the join answer lists none and the offer route is gone', async () => {
    const plain = await startDemoServer({ host: '127.0.0.1', port: 0, bots: 0, webrtc: false });
    try {
      const answer = (await (await fetch(`${plain.url}ghostwire/join`)).json()) as GameJoinAnswer;
      assert.equal(answer.webrtc, null);
      assert.deepEqual(plain.status().server.transports, ['udp', 'websocket']);
      assert.equal((await fetch(`${plain.url}ghostwire/rtc`, { method: 'POST', body: '{}' })).status, 405);
    } finally {
      await plain.close();
    }
  });

  async function join(): Promise<GameJoinAnswer> {
    const response = await fetch(`${demo.url}ghostwire/join`);
    assert.equal(response.status, 200);
    return (await response.json()) as GameJoinAnswer;
  }
});
