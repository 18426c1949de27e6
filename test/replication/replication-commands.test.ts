import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineMessage, MessageClient, MessageFactory } from '../../src/channels/index.js';
import { receivedMessage } from '../../src/channels/message.js';
import { nobleAead } from '../../src/connection/aead.js';
import { prng, randomInt } from '../../src/random/prng.js';
import {
  ClientMirror,
  type CommandRefusal,
  defineCommand,
  defineEntity,
  type Ghost,
  ReplicationServer,
  ServerWorld,
  sendCommand,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { messageSession } from '../support/message-session.js';
import { testSeed } from '../support/seed.js';

/** Client → server commands over real MessageServer / MessageClient connections on a simulated clock. */
const SEED = testSeed('replication commands');

const Player = defineEntity('player', t.object({ x: t.int(-1000, 1000), hp: t.int(0, 100) }));
const Crate = defineEntity('crate', t.object({ open: t.bool() }));
const types = [Player, Crate];
const Move = defineCommand('move', t.object({ dx: t.int(-4, 4) }), { target: Player });
const Shout = defineCommand('shout', t.object({ text: t.string(20) }));
const Unhandled = defineCommand('unhandled', t.bool());
const Chat = defineMessage('chat', t.string(20));
const factory = new MessageFactory([Chat, Move, Shout, Unhandled]);
const CAPACITY = 16;
const ACTIONS = 1;
const INPUTS = 2;

function scene(rate = { ratePerSecond: 5, burst: 3 }) {
  const world = new ServerWorld({ types, capacity: CAPACITY });
  const refusals: [number, CommandRefusal, string][] = [];
  const replication = new ReplicationServer({
    world,
    maxClients: 4,
    commands: { ...rate, onRefused: (c, reason, detail) => refusals.push([c, reason, detail]) },
  });
  const router = replication.commands;
  const shouts: string[] = [];
  router.on(Move, {
    validate: (_client, command) => command.dx !== 0 || 'a move of 0 does nothing',
    run: (_client, command, entity) => {
      const value = world.get(entity);
      world.set(entity, { ...value, x: value.x + command.dx });
    },
  });
  router.on(Shout, { run: (client, command) => shouts.push(`${client}: ${command.text}`) });
  const session = messageSession({
    protocolId: 91n,
    factory,
    channels: [replication.channel, { kind: 'reliable-ordered' }, { kind: 'unreliable-sequenced' }],
    maxClients: 4,
  });
  const { server, clock } = session;
  const others: string[] = [];
  const clients = [1, 2].map((i) => {
    const mirror = new ClientMirror({ types, capacity: CAPACITY });
    const client = new MessageClient({
      transport: session.network.createTransport(`10.0.0.${i}:1`),
      aead: nobleAead,
      factory,
      channels: [mirror.channel, { kind: 'reliable-ordered' }, { kind: 'unreliable-sequenced' }],
    });
    client.connect(session.token(BigInt(i)), clock.now);
    return { mirror, client };
  });
  const step = (dt = 1 / 30) => {
    clock.now += dt;
    world.tick();
    server.update(clock.now);
    for (let c = 0; c < 4; c++) {
      if (!server.server.isConnected(c)) continue;
      for (const channel of [ACTIONS, INPUTS]) {
        for (let m = server.receive(c, channel); m !== null; m = server.receive(c, channel))
          if (router.dispatch(c, m, clock.now) === 'not-a-command') others.push(m.name);
      }
    }
    for (const c of clients) c.client.update(clock.now);
  };
  return { world, replication, router, server, clients, step, clock, session, refusals, shouts, others };
}

type Scene = ReturnType<typeof scene>;

function snapshot(world: ServerWorld): string {
  const out: unknown[] = [];
  for (let id = 0; id < world.capacity; id++) {
    const e = world.entity(id);
    if (e !== null) out.push([id, e.generation, world.get(e), world.ownerOf(e)]);
  }
  return JSON.stringify(out);
}

function ghostOf(s: Scene, client: number, id: number): Ghost<{ x: number; hp: number }> {
  const ghost = s.clients[client].mirror.ghost(id);
  assert.ok(ghost !== null, `client ${client} holds a ghost of ${id}`);
  return ghost as Ghost<{ x: number; hp: number }>;
}

/** Connects both clients, gives each a player it owns and waits until both hold every ghost. */
function started(rate?: { ratePerSecond: number; burst: number }) {
  const s = scene(rate);
  for (let i = 0; i < 120 && !s.clients.every((c) => c.client.connected); i++) s.step();
  assert.ok(
    s.clients.every((c) => c.client.connected),
    'clients connect',
  );
  const players = s.clients.map((c, i) => {
    const e = s.world.create(Player, { x: i * 100, hp: 100 });
    s.world.setOwner(e, c.client.client.clientIndex);
    return e;
  });
  const crate = s.world.create(Crate, { open: false });
  for (let i = 0; i < 60 && !s.clients.every((c) => c.mirror.size === 3); i++) s.step();
  assert.ok(
    s.clients.every((c) => c.mirror.size === 3),
    'every client holds every ghost',
  );
  return { ...s, players, crate };
}

/** Steps until the server has taken everything the clients sent (reliable: a few round trips). */
function settle(s: Scene, steps = 20) {
  for (let i = 0; i < steps; i++) s.step();
}

describe(`client commands (seed ${SEED})`, () => {
  it('an owned, valid command is delivered once and changes its entity', () => {
    const s = started();
    const [a] = s.players;
    sendCommand(s.clients[0].client, ACTIONS, Move, { dx: 3 }, ghostOf(s, 0, a.id));
    sendCommand(s.clients[0].client, INPUTS, Shout, { text: 'hi' });
    s.clients[0].client.send(ACTIONS, Chat, 'not a command');
    settle(s);
    assert.equal(s.world.get(a).x, 3);
    assert.deepEqual(s.shouts, [`${s.clients[0].client.client.clientIndex}: hi`]);
    assert.deepEqual(s.others, ['chat'], 'other messages on the channel are left to the game');
    assert.equal(s.router.stats.delivered, 2);
    assert.deepEqual(s.refusals, []);
  });

  it('unowned, missing-entity and validator-refused commands are counted and change nothing', () => {
    const s = started();
    const [a, b] = s.players;
    const before = snapshot(s.world);
    const c0 = s.clients[0].client;
    sendCommand(c0, ACTIONS, Move, { dx: 1 }, ghostOf(s, 0, b.id)); // b is client 1's
    const stale = { ...ghostOf(s, 0, a.id), generation: (a.generation + 1) & 0xffff };
    sendCommand(c0, ACTIONS, Move, { dx: 1 }, stale); // no such generation
    sendCommand(c0, ACTIONS, Move, { dx: 0 }, ghostOf(s, 0, a.id)); // the validator refuses
    settle(s);
    assert.equal(snapshot(s.world), before, 'the world is unchanged');
    const { stats } = s.router;
    assert.deepEqual(
      [stats.delivered, stats.unowned, stats.missingEntity, stats.rejectedByValidator],
      [0, 1, 1, 1],
    );
    assert.deepEqual(
      s.refusals.map((r) => r[1]),
      ['unowned', 'missing-entity', 'rejected-by-validator'],
    );
    assert.equal(s.refusals[2][2], 'a move of 0 does nothing', "the validator's reason is passed on");
  });

  it('over-rate commands are refused, and the bucket refills as time passes', () => {
    const s = started({ ratePerSecond: 5, burst: 3 });
    const [a] = s.players;
    const c0 = s.clients[0].client;
    for (let i = 0; i < 5; i++) sendCommand(c0, ACTIONS, Move, { dx: 1 }, ghostOf(s, 0, a.id));
    settle(s, 3); // 0.1 s: the five arrive together
    settle(s);
    assert.equal(s.router.stats.delivered, 3, 'the burst');
    assert.equal(s.router.stats.overRate, 2);
    assert.equal(s.world.get(a).x, 3, 'refused moves did not move');
    for (let i = 0; i < 30; i++) s.step(); // one more second: five tokens, capped at the burst
    for (let i = 0; i < 3; i++) sendCommand(c0, ACTIONS, Move, { dx: 1 }, ghostOf(s, 0, a.id));
    settle(s);
    assert.equal(s.router.stats.delivered, 6);
    assert.equal(s.router.stats.overRate, 2);
    assert.equal(s.world.get(a).x, 6);
  });

  it('ownership ends when the owner disconnects', () => {
    const s = started();
    const [a, b] = s.players;
    const index = s.clients[0].client.client.clientIndex;
    assert.equal(s.world.ownerOf(a), index);
    s.clients[0].client.disconnect();
    for (let i = 0; i < 60 && s.server.server.isConnected(index); i++) s.step();
    assert.equal(s.server.server.isConnected(index), false, 'the server saw the disconnect');
    assert.equal(s.world.ownerOf(a), null);
    assert.equal(s.world.ownerOf(b), s.clients[1].client.client.clientIndex, "the other client's stays");
    // A command that arrives for the slot afterwards is refused as unowned.
    const hostile = receivedMessage(Move, {
      value: { dx: 1 },
      target: { id: a.id, generation: a.generation },
    });
    assert.equal(s.router.dispatch(index, hostile, s.clock.now), 'unowned');
  });

  it('hostile or unhandled commands are refused without throwing; misuse throws at the call', () => {
    const s = started();
    const now = s.clock.now;
    const far = receivedMessage(Move, { value: { dx: 1 }, target: { id: 65535, generation: 0 } });
    assert.equal(s.router.dispatch(0, far, now), 'invalid');
    const crate = receivedMessage(Move, {
      value: { dx: 1 },
      target: { id: s.crate.id, generation: s.crate.generation },
    });
    assert.equal(s.router.dispatch(0, crate, now), 'missing-entity', 'a crate is not a player');
    assert.equal(
      s.router.dispatch(0, receivedMessage(Unhandled, { value: true, target: null }), now),
      'invalid',
    );
    assert.equal(s.router.stats.invalid, 2);
    const c0 = s.clients[0].client;
    const ghost = ghostOf(s, 0, s.players[0].id);
    const loose = sendCommand as (...args: unknown[]) => number;
    assert.throws(() => loose(c0, ACTIONS, Shout, { text: 'x' }, ghost), /takes no ghost/);
    assert.throws(() => loose(c0, ACTIONS, Move, { dx: 1 }), /needs the ghost/);
    const crateGhost = s.clients[0].mirror.ghost(s.crate.id);
    assert.throws(() => sendCommand(c0, ACTIONS, Move, { dx: 1 }, crateGhost as never), /not a player/);
    assert.throws(() => sendCommand(c0, ACTIONS, Move, { dx: 9 }, ghost), RangeError);
    assert.throws(() => s.router.dispatch(0, far, now - 1), /time went backwards/);
    assert.throws(() => s.router.dispatch(9, far, now), RangeError);
    assert.throws(() => s.router.setRate(1, 0.5), /burst/);
    assert.throws(() => s.world.setOwner(s.crate, -1), RangeError);
  });

  it('ownership: set and read on the server, ended by a destroy, none on a reused id', () => {
    const world = new ServerWorld({ types, capacity: 2 });
    const a = world.create(Player, { x: 0, hp: 1 });
    assert.equal(world.ownerOf(a), null);
    world.setOwner(a, 7);
    assert.equal(world.ownerOf(a), 7);
    assert.ok(world.ownsId(7, a.id) && !world.ownsId(6, a.id));
    world.setOwner(a, null);
    assert.equal(world.ownerOf(a), null);
    world.setOwner(a, 7);
    world.destroy(a);
    const reused = world.create(Player, { x: 0, hp: 1 });
    assert.equal(reused.id, a.id);
    assert.equal(world.ownerOf(reused), null, 'a new entity under the id is owned by nobody');
    assert.throws(() => world.ownerOf(a), /destroyed/);
    assert.throws(() => world.setOwner(reused, 1.5), RangeError);
    world.setOwner(reused, 3);
    assert.equal(world.disown(3), 1);
    assert.equal(world.ownerOf(reused), null);
  });

  it('random hostile commands never throw, never change the world unless owned and valid', () => {
    const next = prng(SEED);
    const world = new ServerWorld({ types, capacity: CAPACITY });
    const replication = new ReplicationServer({
      world,
      maxClients: 4,
      commands: { ratePerSecond: 20, burst: 4 },
    });
    const router = replication.commands;
    const moved: number[] = [];
    router.on(Move, {
      validate: (_c, m) => m.dx > 0,
      run: (client, m, entity) => {
        moved.push(client);
        world.set(entity, { ...world.get(entity), x: world.get(entity).x + m.dx });
      },
    });
    const players = [0, 1, 2, 3].map((c) => {
      const e = world.create(world.types[0] as typeof Player, { x: 0, hp: 1 });
      world.setOwner(e, c);
      return e;
    });
    world.create(Crate, { open: true });
    let now = 0;
    let expected = 0;
    const tokens = [4, 4, 4, 4];
    for (let i = 0; i < 2000; i++) {
      const dt = next() < 0.9 ? 0 : randomInt(next, 4) / 16; // exact in binary, so the model agrees
      now += dt;
      for (let c = 0; c < 4; c++) tokens[c] = Math.min(4, tokens[c] + dt * 20);
      const client = randomInt(next, 4);
      const id = next() < 0.8 ? randomInt(next, CAPACITY) : randomInt(next, 65536);
      const generation = next() < 0.8 ? 1 : randomInt(next, 65536);
      const dx = randomInt(next, 9) - 4;
      const message = receivedMessage(Move, { value: { dx }, target: { id, generation } });
      const outcome = router.dispatch(client, message, now);
      const allowed = tokens[client] >= 1;
      if (allowed) tokens[client] -= 1;
      const owned = id === players[client].id && generation === players[client].generation;
      const live = id < CAPACITY ? world.entity(id) : null;
      const refusal =
        id >= CAPACITY
          ? 'invalid'
          : live === null || live.generation !== generation || live.type !== Player
            ? 'missing-entity'
            : 'unowned';
      const want = !allowed ? 'over-rate' : !owned ? refusal : dx > 0 ? 'delivered' : 'rejected-by-validator';
      assert.equal(outcome, want, `command ${i} (seed ${SEED})`);
      if (outcome === 'delivered') expected++;
    }
    assert.equal(router.stats.delivered, expected);
    const s = router.stats;
    assert.equal(
      s.delivered + s.invalid + s.unowned + s.missingEntity + s.overRate + s.rejectedByValidator,
      2000,
    );
    const total = players.reduce((sum, p) => sum + world.get(p).x, 0);
    assert.ok(total > 0 && moved.length === expected, 'only delivered moves moved a player');
  });

  it('setRate: a fresh bucket starts full at the new burst, a used one keeps its tokens', () => {
    const world = new ServerWorld({ types, capacity: 2 });
    const router = new ReplicationServer({ world, maxClients: 2 }).commands;
    router.on(Shout, { run: () => {} });
    const shout = receivedMessage(Shout, { value: { text: '' }, target: null });
    const burst = (client: number, now: number) => {
      let n = 0;
      while (router.dispatch(client, shout, now) === 'delivered') n++;
      return n;
    };
    assert.equal(burst(0, 0), 10, 'the default burst');
    router.setRate(4, 20);
    assert.equal(burst(1, 0), 20, 'an unused bucket holds the new burst');
    assert.equal(burst(0, 0), 0, 'a used one keeps what it had (none)');
    assert.equal(burst(0, 1), 4, 'and fills at the new rate');
    assert.deepEqual([router.ratePerSecond, router.burst], [4, 20]);
  });
});
