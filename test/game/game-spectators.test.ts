/**
 * Spectators over real UDP: their own seats, no player and no entity, what they watch (a player's
 * entity or a free camera) moving their relevancy, and everything else they send refused and
 * counted: inputs, game messages, bad or too many requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import '../../src/node.js';
import { MessageClient } from '../../src/channels/message-endpoints.js';
import { defineGame, wiringOf } from '../../src/game/define-game.js';
import { GameClient } from '../../src/game/game-client.js';
import { fromBase64, JOIN_PATH } from '../../src/game/game-join.js';
import { GameServer } from '../../src/game/game-server.js';
import { SpectatorRequestSender } from '../../src/game/spectator-channels.js';
import { registeredUdpOpener } from '../../src/game/transport-openers.js';
import { InputSender } from '../../src/latency/input-sender.js';
import { ClientMirror } from '../../src/replication/client-mirror.js';
import { t } from '../../src/schema/schema.js';
import { pumpClients as pump } from '../support/pump-clients.js';
import { until } from '../support/until.js';

const coord = t.float(-256, 256, 1 / 16);
const field = defineGame({
  name: 'spectate-field',
  tickRate: 30,
  entities: {
    avatar: { state: t.object({ x: coord, y: coord }), position: (a) => [a.x, a.y] },
    marker: { state: t.object({ x: coord, y: coord }), position: (m) => [m.x, m.y] },
  },
  player: 'avatar',
  input: t.object({ dx: t.int(-1, 1) }),
  step: (a, input) => ({ ...a, x: a.x + input.dx }),
  messages: { chat: t.object({ text: t.string(32) }) },
});

/** Markers at x = -100 (west) and x = 100 (east); players spawn at x = 0: relevancy radius 20 keeps them apart. */
function fieldRules(log: { joins: number; leaves: number; chat: number; inputs: number }) {
  return field.rules({
    onJoin(game, player) {
      log.joins++;
      player.spawn({ x: 0, y: 0 });
      if (game.entities.every((e) => e.type !== 'marker')) {
        game.spawn('marker', { x: -100, y: 0 });
        game.spawn('marker', { x: 100, y: 0 });
      }
    },
    onLeave() {
      log.leaves++;
    },
    onMessage() {
      log.chat++;
    },
    onInput() {
      log.inputs++;
    },
  });
}

/** Marker ids a client holds now, by where they stand. */
function markersSeen(client: GameClient): string[] {
  return client.entities
    .filter((e) => e.type === 'marker')
    .map((e) => ((e.state as { x: number }).x < 0 ? 'west' : 'east'))
    .sort();
}

interface Crafted {
  raw: MessageClient;
  inputs: InputSender<{ dx: number }>;
  requests: SpectatorRequestSender;
  close(): void;
}

/** A spectator's connection made by hand (a real token, real UDP) whose channels send what `act` says, 60 times a second. */
async function craftedSpectator(url: string, act: (c: Crafted, tick: number) => void): Promise<Crafted> {
  const response = await fetch(`${url}${JOIN_PATH}?spectate`);
  const answer = (await response.json()) as { token: string; serverAddress: string };
  const wiring = wiringOf('test', field);
  const mirror = new ClientMirror({
    types: wiring.types,
    capacity: field.maxEntities,
    events: wiring.events,
  });
  const inputs = new InputSender<{ dx: number }>({ schema: field.input });
  const requests = new SpectatorRequestSender();
  const transport = await registeredUdpOpener()!(answer.serverAddress);
  const raw = new MessageClient({
    transport,
    factory: wiring.factory,
    channels: [
      mirror.channel,
      inputs.channel,
      { kind: 'reliable-ordered' },
      { kind: 'custom', create: () => requests },
    ],
  });
  raw.connect(fromBase64(answer.token), performance.now() / 1000);
  let tick = 1;
  const crafted: Crafted = {
    raw,
    inputs,
    requests,
    close: () => {
      clearInterval(timer);
      raw.disconnect();
      transport.close();
    },
  };
  const timer = setInterval(() => {
    raw.update(performance.now() / 1000);
    if (raw.connected) act(crafted, tick++);
  }, 1000 / 60);
  return crafted;
}

describe('spectators', () => {
  const log = { joins: 0, leaves: 0, chat: 0, inputs: 0 };
  let server: GameServer;
  before(async () => {
    server = await GameServer.start(fieldRules(log), {
      port: 0,
      transports: ['udp'],
      maxPlayers: 1,
      spectators: { max: 2, maxPerAddress: 3, requestsPerSecond: 10 },
      relevancy: { radius: 20, bounds: [-256, -256, 256, 256] },
    });
  });
  after(() => server.close());

  it('a spectator joins without a player or an entity, and follow / camera move what it is sent', async () => {
    const player = await GameClient.connect(field, server.url);
    const tv = await GameClient.connect(field, server.url, { spectate: true });
    try {
      await pump([player, tv], 'the player and the spectator', 5000, () => player.me !== null);
      assert.equal(server.stats().players, 1);
      assert.equal(server.stats().spectators, 1);
      assert.equal(server.simulation.players.length, 1, 'the spectator is not in game.players');
      assert.equal(log.joins, 1, 'no onJoin for the spectator');
      assert.equal(server.simulation.entities.length, 3, 'the spectator has no entity');
      assert.equal(tv.me, null);

      tv.camera(-100, 0);
      await pump([player, tv], 'the west marker only', 5000, () => markersSeen(tv).join() === 'west');
      assert.ok(
        tv.entities.every((e) => e.type !== 'avatar'),
        'the player at x = 0 is out of range',
      );
      tv.camera(100, 0);
      await pump([player, tv], 'the east marker only', 5000, () => markersSeen(tv).join() === 'east');
      tv.follow(player.me!.id);
      await pump(
        [player, tv],
        "the followed player's surroundings",
        5000,
        () => tv.entities.some((e) => e.id === player.me!.id) && markersSeen(tv).length === 0,
      );
      assert.throws(() => player.follow(0), /only a spectator/);
      assert.throws(() => tv.update({ dx: 1 } as never), /a spectator sends no input/);
      assert.throws(() => tv.send('chat', { text: 'hi' }), /a spectator sends no game messages/);
      assert.throws(() => tv.camera(Number.NaN, 0), RangeError);
      assert.throws(() => tv.follow(field.maxEntities), RangeError);
    } finally {
      tv.close();
      player.close();
    }
    await until('both to leave', 5000, () => server.stats().players === 0 && server.stats().spectators === 0);
    assert.equal(log.leaves, 1, 'no onLeave for the spectator');
  });

  it('seats are apart: spectators never take a player seat, nor players a spectator seat', async () => {
    const before = server.stats().spectatorsOverMax;
    const tvs = [
      await GameClient.connect(field, server.url, { spectate: true }),
      await GameClient.connect(field, server.url, { spectate: true }),
    ];
    const clients = [...tvs];
    try {
      await pump(clients, 'two spectators', 5000, () => server.stats().spectators === 2);
      // A third spectator is over spectators.max = 2, though the player's seat is free: refused.
      const third = await GameClient.connect(field, server.url, { spectate: true }).catch(() => null);
      await pump(
        clients,
        'the third spectator refused',
        5000,
        () => server.stats().spectatorsOverMax > before,
      );
      third?.close();
      assert.equal(server.stats().spectators, 2);
      // The player's seat is still there for a player.
      const player = await GameClient.connect(field, server.url);
      clients.push(player);
      await pump(clients, 'the player in', 5000, () => player.me !== null);
      // A second player is over maxPlayers = 1 (and this address's one player place).
      await assert.rejects(GameClient.connect(field, server.url), /429/);
      assert.equal(server.stats().players, 1);
      assert.equal(server.stats().spectators, 2);
      assert.equal(server.simulation.players.length, 1);
    } finally {
      for (const client of clients) client.close();
    }
    await until('all to leave', 5000, () => server.stats().players === 0 && server.stats().spectators === 0);
  });

  it('crafted spectator connections sending inputs, messages and bad requests change nothing and are counted', async () => {
    await until('the seats of the last test free', 5000, () => server.stats().players === 0);
    const player = await GameClient.connect(field, server.url);
    const start = { ...server.stats() };
    const inputsBefore = log.inputs;
    // One sends inputs (each such packet is refused whole); the other messages and bad requests.
    const inputting = await craftedSpectator(server.url, (c, tick) => c.inputs.push(tick, { dx: 1 }));
    const talking = await craftedSpectator(server.url, (c, tick) => {
      // Messages first (a packet with a bad request is refused whole, messages and all), then bad requests.
      if (tick <= 30) {
        if (tick % 3 === 0) c.raw.send(2, field.messageTypes.chat, { text: 'let me play' });
      } else c.requests.set(tick % 2 === 0 ? { camera: { x: Number.NaN, y: 0 } } : { follow: 1_000_000 });
    });
    try {
      await pump([player], 'refusals counted', 8000, () => {
        const s = server.stats();
        return (
          s.spectatorInputsRefused > start.spectatorInputsRefused + 20 &&
          s.spectatorMessagesRefused > start.spectatorMessagesRefused + 3 &&
          s.spectatorRequestsRefused > start.spectatorRequestsRefused + 5
        );
      });
      assert.equal(server.stats().spectators, 2, 'the crafted connections are spectators');
      assert.equal(log.chat, 0, 'no message reached the rules');
      assert.equal(server.simulation.players.length, 1);
      assert.equal(server.simulation.entities.length, 3);
      const ticks = server.stats().ticks - start.ticks;
      assert.ok(log.inputs - inputsBefore <= ticks + 1, 'onInput ran for the one player only');
      assert.equal(server.stats().inputsRefused, start.inputsRefused, 'no input entered the input receiver');
    } finally {
      inputting.close();
      talking.close();
      player.close();
    }
  });

  it('a server without spectators refuses spectators at the join endpoint', async () => {
    const plain = await GameServer.start(fieldRules({ joins: 0, leaves: 0, chat: 0, inputs: 0 }), {
      port: 0,
      transports: ['udp'],
    });
    try {
      const response = await fetch(`${plain.url}${JOIN_PATH}?spectate`);
      assert.equal(response.status, 403);
      await assert.rejects(GameClient.connect(field, plain.url, { spectate: true }), /no spectators/);
    } finally {
      await plain.close();
    }
  });
});
