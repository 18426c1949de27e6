import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../../src/channels/index.js';
import { prng, randomInt } from '../../src/random/prng.js';
import { configurationHash } from '../../src/replication/configuration.js';
import {
  ClientMirror,
  defineEntity,
  defineEvent,
  type Entity,
  group,
  owner,
  ReplicationServer,
  ServerWorld,
  when,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';

/** Per-field visibility: private parts reach their audience only, by every path. */
const SEED = testSeed('replication visibility');

let coaches = new Set<number>();
const Avatar = defineEntity(
  'avatar',
  t.object({
    x: t.int(0, 1000),
    hp: t.uint8(),
    secret: t.bytes(32),
    plan: t.object({ tx: t.int(0, 1000), ty: t.int(0, 1000) }),
    dossier: t.string(8),
  }),
  { visibility: { secret: owner(), plan: group(), dossier: when((client) => coaches.has(client)) } },
);
const types = [Avatar];
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(4) }))]);
const CAPACITY = 64;
type AvatarValue = {
  x: number;
  hp: number;
  secret: Uint8Array;
  plan: { tx: number; ty: number };
  dossier: string;
};
const Intel = defineEvent('intel', t.object({ n: t.uint8() }));

function value(x: number, secretByte: number, tx: number, dossier = ''): AvatarValue {
  return { x, hp: 100, secret: new Uint8Array(32).fill(secretByte), plan: { tx, ty: 7 }, dossier };
}

/** A server and `count` clients over bare connections; `send(c, deliver)` moves one packet to client c. */
function scene(count: number) {
  const world = new ServerWorld({ types, capacity: CAPACITY, historyLength: 8 });
  const replication = new ReplicationServer({ world, maxClients: count, events: [Intel] });
  const got: string[][] = Array.from({ length: count }, () => []);
  const mirrors = Array.from(
    { length: count },
    (_, c) =>
      new ClientMirror({
        types,
        capacity: CAPACITY,
        historyLength: 8,
        events: [Intel],
        onEvent: (e) => got[c].push(`${e.name} ${JSON.stringify(e.value)}`),
      }),
  );
  const servers: MessageConnection[] = [];
  const clients: MessageConnection[] = [];
  const connect = (c: number) => {
    servers[c] = new MessageConnection({ factory, channels: [replication.channel], clientIndex: c });
    clients[c] = new MessageConnection({ factory, channels: [mirrors[c].channel], clientIndex: c });
  };
  for (let c = 0; c < count; c++) connect(c);
  let now = 0;
  const send = (c: number, deliver = true, twice = false): { data: Uint8Array; record: PacketRecord } => {
    const { data, record } = servers[c].writePacket(now);
    const copy = data.slice();
    if (deliver) {
      const took = clients[c].readPacket(copy.slice(), 0, copy.length);
      if (twice) clients[c].readPacket(copy.slice(), 0, copy.length);
      if (took) servers[c].acked(record);
    }
    return { data: copy, record };
  };
  const step = () => {
    now += 1 / 30;
  };
  return { world, replication, mirrors, send, step, connect, clients, got };
}

/**
 * One scripted run. `secret(tick)` gives the values client 0 may never (or not then) see; the
 * returned list is every datagram the server wrote to client 0.
 */
function scriptedRun(secret: (tick: number) => number, drops: (tick: number) => boolean) {
  coaches = new Set([1]);
  const s = scene(2);
  const { world, replication } = s;
  replication.setGroups(0, 1 << 0);
  replication.setGroups(1, 1 << 1);
  const seen: string[] = [];
  let mine: Entity<AvatarValue> | null = null;
  let theirs: Entity<AvatarValue> | null = null;
  let team1: Entity<AvatarValue> | null = null;
  for (let tick = 1; tick <= 60; tick++) {
    const k = secret(tick);
    if (tick === 1) {
      mine = world.create(Avatar, value(1, 1, 1));
      world.setOwner(mine, 0);
      world.setGroup(mine, 0);
      theirs = world.create(Avatar, value(2, k, k, `d${k % 10}`));
      world.setOwner(theirs, 1);
      world.setGroup(theirs, 1);
      team1 = world.create(Avatar, value(3, k, k));
      world.setGroup(team1, 1);
    } else {
      world.set(mine!, value(tick, tick, tick));
      // Client 0 never holds theirs' secret or dossier; it holds theirs' plan in ticks 20..29.
      const planVisible = (tick >= 19 && tick < 30) || (tick >= 34 && tick < 37);
      world.set(theirs!, value(tick % 3 === 0 ? tick : 2, k, planVisible ? 5 : k, `d${k % 10}`));
      world.set(team1!, value(3, k, planVisible ? 6 : k));
    }
    if (tick === 20) replication.setGroups(0, (1 << 0) | (1 << 1)); // a grant, no later change
    if (tick === 30) replication.setGroups(0, 1 << 0); // a withdraw
    if (tick === 35) replication.setGroups(0, (1 << 0) | (1 << 1)); // a grant in flight…
    if (tick === 36) replication.setGroups(0, 1 << 0); // …withdrawn before its ack
    if (tick === 40) world.setOwner(theirs!, 1); // no change: nothing to send
    if (tick === 45) s.connect(0); // a reconnect
    if (tick % 5 === 0) replication.emit(Intel, { n: k }, { entity: theirs!, part: 'secret' }); // the owner's only
    world.tick();
    s.step();
    const packet = s.send(0, !drops(tick), tick % 7 === 0);
    seen.push(Buffer.from(packet.data).toString('hex'));
    s.send(1);
    // The script does what it says: client 0 holds theirs' plan in 20..29 only (and after the
    // reconnect at 45 nothing of it).
    if (tick === 25) assert.equal(s.mirrors[0].holds(theirs!.id, 'plan'), true, 'the grant at 20 arrived');
    if (tick === 33 || tick === 40 || tick === 60)
      assert.equal(s.mirrors[0].holds(theirs!.id, 'plan'), false, `tick ${tick}: plan still held`);
    if (tick === 60)
      assert.equal(s.mirrors[0].holds(mine!.id, 'secret'), true, 'its own secret, after the reconnect');
    // Client 0 never reads what it may not see.
    for (const ghost of s.mirrors[0].ghosts()) {
      const v = ghost.value as AvatarValue;
      if (ghost.id !== mine!.id) assert.equal(v.secret, undefined, `tick ${tick}: a secret reached client 0`);
      assert.equal(v.dossier, undefined, `tick ${tick}: a dossier reached client 0`);
    }
  }
  return { seen, s, mine: mine!, theirs: theirs!, team1: team1! };
}

describe('per-field visibility', () => {
  it('noninterference: runs that differ only in what client 0 may not see give it the same datagrams', () => {
    const next = prng(SEED);
    const a = Array.from({ length: 61 }, () => randomInt(next, 256));
    const b = Array.from({ length: 61 }, () => randomInt(next, 256));
    const drops = (tick: number) => tick === 35 || tick === 12 || tick === 50;
    const runA = scriptedRun((tick) => a[tick], drops);
    const runB = scriptedRun((tick) => b[tick], drops);
    assert.notDeepEqual(a, b);
    for (let i = 0; i < runA.seen.length; i++)
      assert.equal(runA.seen[i], runB.seen[i], `datagram ${i + 1} to client 0 differs (seed ${SEED})`);
    // The holder of the secrets does see them: the runs are not trivially equal.
    const theirs = runA.s.mirrors[1].ghost(runA.theirs.id)!.value as AvatarValue;
    assert.deepEqual([...theirs.secret], new Array(32).fill(a[60]));
    assert.equal(theirs.dossier, `d${a[60] % 10}`);
    assert.ok(runA.s.got[1].length > 0, 'the holder got the part events');
    assert.equal(runA.s.got[0].length, 0, 'an outsider got a part event');
  });

  it('a grant sends the current value with no later change; a withdraw reads undefined', () => {
    const s = scene(1);
    const { world, replication, mirrors } = s;
    const e = world.create(Avatar, value(1, 9, 33));
    world.setGroup(e, 2);
    for (let i = 0; i < 3; i++) {
      world.tick();
      s.step();
      s.send(0);
    }
    const ghost = mirrors[0].ghost(e.id)!;
    assert.equal((ghost.value as AvatarValue).plan, undefined);
    assert.equal(mirrors[0].holds(e.id, 'plan'), false);
    replication.setGroups(0, 1 << 2); // the value does not change again
    world.tick();
    s.step();
    s.send(0);
    assert.equal(mirrors[0].holds(e.id, 'plan'), true);
    assert.deepEqual((mirrors[0].ghost(e.id)!.value as AvatarValue).plan, { tx: 33, ty: 7 });
    world.setOwner(e, 0); // the owner's secret too
    world.tick();
    s.step();
    s.send(0);
    assert.deepEqual([...(mirrors[0].ghost(e.id)!.value as AvatarValue).secret], new Array(32).fill(9));
    world.setGroup(e, 1);
    world.setOwner(e, null);
    world.tick();
    s.step();
    s.send(0);
    const after = mirrors[0].ghost(e.id)!.value as AvatarValue;
    assert.equal(after.plan, undefined);
    assert.equal(after.secret, undefined);
    assert.equal(after.x, 1, 'the public part stays');
    assert.equal([...mirrors[0].ghosts()].length, 1, 'parts are not ghosts of their own');
  });

  it('a change to a private field alone sends outsiders nothing', () => {
    const s = scene(2);
    const { world } = s;
    const e = world.create(Avatar, value(1, 1, 1));
    world.setOwner(e, 1);
    world.tick();
    s.step();
    s.send(0);
    s.send(1);
    const quiet: number[] = [];
    const busy: number[] = [];
    for (let i = 0; i < 5; i++) {
      world.set(e, value(1, 10 + i, 1)); // only the owner's secret changes
      world.tick();
      s.step();
      quiet.push(s.send(0).data.length);
      busy.push(s.send(1).data.length);
    }
    const idle = scene(1);
    const f = idle.world.create(Avatar, value(1, 1, 1));
    idle.world.tick();
    idle.step();
    idle.send(0);
    for (let i = 0; i < 5; i++) {
      idle.world.set(f, value(1, 1, 1));
      idle.world.tick();
      idle.step();
      assert.equal(idle.send(0).data.length, quiet[i], 'an outsider saw the secret change (by size)');
    }
    assert.ok(
      busy.every((n, i) => n > quiet[i]),
      'the owner got the changes',
    );
  });

  it('converges under loss and reordering: a part is defined exactly when its audience holds', () => {
    const next = prng(SEED ^ 0x5151);
    coaches = new Set();
    const s = scene(3);
    const { world, replication, mirrors } = s;
    const live: Entity<AvatarValue>[] = [];
    const late: { c: number; data: Uint8Array }[] = [];
    for (let tick = 1; tick <= 200; tick++) {
      const quiet = tick > 160;
      if (!quiet) {
        const r = next();
        if (live.length < 8 && r < 0.15) live.push(world.create(Avatar, value(randomInt(next, 1000), 1, 1)));
        else if (live.length > 0 && r < 0.2) world.destroy(live.splice(randomInt(next, live.length), 1)[0]);
        else if (live.length > 0 && r < 0.35)
          world.setOwner(live[randomInt(next, live.length)], next() < 0.2 ? null : randomInt(next, 3));
        else if (live.length > 0 && r < 0.5)
          world.setGroup(live[randomInt(next, live.length)], next() < 0.2 ? null : randomInt(next, 3));
        else if (r < 0.6) replication.setGroups(randomInt(next, 3), randomInt(next, 8));
        else if (r < 0.65) {
          const c = randomInt(next, 3);
          if (coaches.has(c)) coaches.delete(c);
          else coaches.add(c);
          replication.revisitClient(c);
        }
        for (const e of live)
          if (next() < 0.5)
            world.set(e, value(randomInt(next, 1000), randomInt(next, 256), randomInt(next, 1000), 'x'));
      }
      world.tick();
      s.step();
      for (let c = 0; c < 3; c++) {
        const lossy = !quiet && next() < 0.3;
        const packet = s.send(c, !lossy);
        // A lost packet sometimes arrives late (reordered; never acked to the server).
        if (lossy && next() < 0.5) late.push({ c, data: packet.data });
      }
      if (late.length > 0 && next() < 0.3) {
        const { c, data } = late.splice(randomInt(next, late.length), 1)[0];
        s.clients[c].readPacket(data.slice(), 0, data.length);
      }
    }
    for (let c = 0; c < 3; c++) {
      for (const e of live) {
        const ghost = mirrors[c].ghost(e.id);
        assert.ok(ghost !== null, `seed ${SEED}: client ${c} lacks entity ${e.id}`);
        const v = ghost.value as AvatarValue;
        const truth = world.get(e);
        const ownerHolds = world.ownerOf(e) === c;
        const g = world.groupOf(e);
        const groupHolds = g !== null && ((replication.groupsOf(c) >>> g) & 1) === 1;
        assert.equal(v.secret !== undefined, ownerHolds, `seed ${SEED}: client ${c} secret of ${e.id}`);
        assert.equal(v.plan !== undefined, groupHolds, `seed ${SEED}: client ${c} plan of ${e.id}`);
        assert.equal(v.dossier !== undefined, coaches.has(c), `seed ${SEED}: client ${c} dossier of ${e.id}`);
        if (ownerHolds) assert.deepEqual([...v.secret], [...truth.secret]);
        if (groupHolds) assert.deepEqual(v.plan, truth.plan);
        assert.equal(v.x, truth.x);
      }
    }
  });

  it('a reader refuses a part it does not hold, with a reason; a withdraw of one it lacks changes nothing', () => {
    const s = scene(2);
    const { world, mirrors } = s;
    const e = world.create(Avatar, value(1, 1, 1));
    world.setOwner(e, 1);
    for (let i = 0; i < 3; i++) {
      world.tick();
      s.step();
      s.send(0);
      s.send(1);
    }
    world.set(e, value(1, 77, 1)); // the owner's secret alone changes
    world.tick();
    s.step();
    s.send(0);
    // Client 1's datagram (a part update) replayed into client 0's connection, which is in step.
    const stolen = s.send(1, false).data;
    const before = JSON.stringify([...mirrors[0].ghosts()].map((g) => g.value));
    assert.equal(
      s.clients[0].readPacket(stolen.slice(), 0, stolen.length),
      false,
      'a part update not held was taken',
    );
    assert.match(String(s.clients[0].lastRejection), /update of ghost \d+, which the client does not have/);
    assert.equal(JSON.stringify([...mirrors[0].ghosts()].map((g) => g.value)), before);
    assert.equal((mirrors[0].ghost(e.id)!.value as AvatarValue).secret, undefined);
    // A withdraw is a destroy, resent until acked: one for a part the client lacks is accepted
    // and changes nothing (refusing it would refuse every resend of a withdraw already applied).
    world.setOwner(e, null);
    world.tick();
    s.step();
    s.send(0);
    const withdraw = s.send(1, false).data;
    const held = JSON.stringify([...mirrors[0].ghosts()].map((g) => g.value));
    s.clients[0].readPacket(withdraw.slice(), 0, withdraw.length);
    assert.equal(JSON.stringify([...mirrors[0].ghosts()].map((g) => g.value)), held);
  });

  it('with distance interest, parts leave and come back with their entity', () => {
    const Walker = defineEntity('walker', t.object({ x: t.int(0, 1000), secret: t.uint16() }), {
      position: (v) => [v.x, 0],
      visibility: { secret: owner() },
    });
    const world = new ServerWorld({ types: [Walker], capacity: 8, historyLength: 8 });
    const replication = new ReplicationServer({
      world,
      maxClients: 1,
      interest: { grid: { min: [0, 0], max: [1000, 1000], cellSize: 50 }, radius: 100 },
    });
    const mirror = new ClientMirror({ types: [Walker], capacity: 8, historyLength: 8 });
    const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
    const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
    let now = 0;
    const step = () => {
      world.tick();
      now += 1 / 30;
      const { data, record } = server.writePacket(now);
      if (client.readPacket(data.slice(), 0, data.length)) server.acked(record);
    };
    replication.view(0)!.setCenter(0, 0);
    const w = world.create(Walker, { x: 10, secret: 5 });
    world.setOwner(w, 0);
    step();
    step();
    assert.equal((mirror.ghost(w.id)!.value as { secret?: number }).secret, 5);
    world.set(w, { x: 900, secret: 6 });
    step();
    step();
    assert.equal(mirror.ghost(w.id), null, 'out of range');
    assert.equal([...mirror.ghosts()].length, 0);
    world.set(w, { x: 20, secret: 6 });
    step();
    step();
    assert.equal(
      (mirror.ghost(w.id)!.value as { secret?: number }).secret,
      6,
      'back, with the current secret',
    );
    world.set(w, { x: 110, secret: 6 }); // in the leave band: still relevant
    world.setOwner(w, null);
    step();
    step();
    assert.notEqual(mirror.ghost(w.id), null);
    assert.equal((mirror.ghost(w.id)!.value as { secret?: number }).secret, undefined);
    world.setOwner(w, 0);
    step();
    step();
    assert.equal((mirror.ghost(w.id)!.value as { secret?: number }).secret, 6, 'granted in the leave band');
  });

  it('an event with part needs a private field of the entity', () => {
    const s = scene(1);
    const e = s.world.create(Avatar, value(1, 1, 1));
    s.world.tick();
    assert.throws(() => s.replication.emit(Intel, { n: 1 }, { entity: e, part: 'x' }), /no private field/);
    assert.throws(() => s.replication.emit(Intel, { n: 1 }, { part: 'secret' }), /needs entity/);
  });

  it('misuse throws at the call; the fingerprint names parts and audiences', () => {
    assert.throws(
      () => defineEntity('a', t.object({ x: t.uint8() }), { visibility: { y: owner() } as never }),
      /not a field/,
    );
    assert.throws(
      () => defineEntity('a', t.object({ x: t.uint8() }), { visibility: { x: 'owner' } as never }),
      /owner\(\)/,
    );
    const world = new ServerWorld({ types, capacity: 3 });
    assert.throws(() => world.create(Avatar, value(1, 1, 1)), /full/); // 1 entity + 3 parts
    const big = new ServerWorld({ types, capacity: 8 });
    const e = big.create(Avatar, value(1, 1, 1));
    assert.throws(() => big.setGroup(e, 32), /\[0, 31\]/);
    assert.throws(() => big.create(big.types[1], {} as never), /companion/);
    assert.equal(big.size, 4);
    big.destroy(e);
    assert.equal(big.size, 0, 'the parts go with their entity');
    const Plain = defineEntity('avatar', Avatar.schema);
    const Other = defineEntity('avatar', Avatar.schema, { visibility: { secret: group() } });
    const hashes = new Set(
      [Plain, Avatar, Other].map((type) =>
        configurationHash(new ServerWorld({ types: [type], capacity: 8 }).types, 8, 8),
      ),
    );
    assert.equal(hashes.size, 3, 'peers that declare visibility otherwise refuse each other');
  });
});
