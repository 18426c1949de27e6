/**
 * GhostSender's selection: the view's ghostSlots column (each member's ghost-table slot beside
 * it, read instead of a hash lookup per candidate) stays equal to the table's own lookup under
 * random enters, leaves, removals, inserts and frees; and selectAll (every member taken, no
 * ordering) writes the very bytes the priority order writes, ties in priority, loss and
 * reconnections included. Seeded.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../../src/channels/index.js';
import { prng } from '../../src/random/prng.js';
import type { GhostSender } from '../../src/replication/ghost-sender.js';
import { GhostTable } from '../../src/replication/ghost-table.js';
import {
  ClientMirror,
  defineEntity,
  type Entity,
  type Importance,
  InterestManager,
  type InterestView,
  ReplicationServer,
  ServerWorld,
} from '../../src/replication/index.js';
import { t } from '../../src/schema/schema.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('ghost select tests');

/** The sender's private parts these tests look at. */
const inside = (sender: GhostSender) =>
  sender as unknown as { table: GhostTable; selector: { tookAll: boolean } };

/** Every member's column entry against the table's lookup. */
function checkColumn(view: InterestView, table: GhostTable, where: string): void {
  for (let slot = 0; slot < view.count; slot++) {
    const id = view.ids[slot];
    assert.equal(view.ghostSlots[slot] - 1, table.find(id), `${where}: member ${id} in view slot ${slot}`);
  }
}

const Orb = defineEntity(
  'orb',
  t.object({ x: t.float(0, 200, 1 / 64), y: t.float(0, 200, 1 / 64), glow: t.int(0, 15) }),
  { position: (v) => [v.x, v.y] },
);
const Big = defineEntity(
  'big',
  t.object({ x: t.float(0, 200, 1 / 64), y: t.float(0, 200, 1 / 64), s: t.uint16() }),
  { position: (v) => [v.x, v.y], priority: 3 },
);
type Value = { x: number; y: number; glow?: number; s?: number };
const types = [Orb, Big];
const CAPACITY = 400;
const CLIENTS = 5;
const factory = new MessageFactory([defineMessage('chat', t.object({ text: t.string(4) }))]);

interface Run {
  digest: string;
  packets: number;
  /** Selections that tried selectAll first (the previous one took every member). */
  tookAll: number;
}

/**
 * A seeded scene: entities created (some in clusters at one spot: equal priorities), moved and
 * destroyed; clients whose views wander, a packet each per tick, 15% lost, acks two packets
 * late, 1% reconnecting; below 60 packets' worth of kbps many packets have no room (their
 * views are updated and acks arrive meanwhile: a ghost left, came back and its destroy was acked
 * before its create was planned). With `priorityOnly`, every selection goes by priority. `check` runs
 * after every packet.
 */
function runScene(
  seed: number,
  bytesPerPacket: number,
  kbps: number,
  priorityOnly: boolean,
  check?: (s: GhostSender) => void,
  importance?: Importance,
): Run {
  const next = prng(seed);
  const world = new ServerWorld({ types, capacity: CAPACITY });
  const replication = new ReplicationServer({
    world,
    maxClients: CLIENTS,
    interest: { grid: { min: [0, 0], max: [200, 200], cellSize: 20 }, radius: 40 },
    bandwidth: { bytesPerPacket, kbps },
    ...(importance === undefined ? {} : { priorityOptions: { importance } }),
  });
  const senders: GhostSender[] = [];
  const channel = {
    ...replication.channel,
    create: (client: number) => {
      const sender = replication.channel.create(client) as GhostSender;
      senders[client] = sender;
      return sender;
    },
  };
  type Link = {
    server: MessageConnection;
    client: MessageConnection;
    x: number;
    y: number;
    inFlight: { record: PacketRecord; lost: boolean }[];
  };
  const links: Link[] = [];
  const connect = (client: number) => {
    const mirror = new ClientMirror({ types, capacity: CAPACITY });
    links[client] = {
      server: new MessageConnection({ factory, channels: [channel], clientIndex: client }),
      client: new MessageConnection({ factory, channels: [mirror.channel], clientIndex: client }),
      x: next() * 200,
      y: next() * 200,
      inFlight: [],
    };
  };
  for (let c = 0; c < CLIENTS; c++) connect(c);
  const entities: Entity<Value>[] = [];
  const values: Value[] = [];
  const hash = createHash('sha256');
  const run: Run = { digest: '', packets: 0, tookAll: 0 };
  let now = 0;
  for (let frame = 0; frame < 700; frame++) {
    if (next() < 0.3 && entities.length < CAPACITY - 10) {
      const x = Math.round(next() * 200 * 64) / 64;
      const y = Math.round(next() * 200 * 64) / 64;
      for (let k = next() < 0.2 ? 4 : 1; k > 0; k--) {
        if (next() < 0.3) {
          const value = { x, y, s: 0 };
          entities.push(world.create(Big, value) as Entity<Value>);
          values.push(value);
        } else {
          const value = { x, y, glow: 0 };
          entities.push(world.create(Orb, value) as Entity<Value>);
          values.push(value);
        }
      }
    }
    if (next() < 0.15 && entities.length > 20) {
      const i = Math.floor(next() * entities.length);
      world.destroy(entities[i]);
      entities[i] = entities[entities.length - 1];
      values[i] = values[values.length - 1];
      entities.pop();
      values.pop();
    }
    for (let i = 0; i < entities.length; i++) {
      if (next() >= 0.3) continue;
      const v = values[i];
      v.x = Math.min(199, Math.max(0, v.x + (next() - 0.5) * 3));
      v.y = Math.min(199, Math.max(0, v.y + (next() - 0.5) * 3));
      if (v.glow !== undefined) v.glow = (v.glow + 1) & 15;
      else v.s = ((v.s ?? 0) + 7) & 0xffff;
      world.set(entities[i], v);
    }
    world.tick();
    now += 1 / 60;
    for (let c = 0; c < CLIENTS; c++) {
      const link = links[c];
      if (next() < 0.01) {
        replication.removeClient(c);
        connect(c);
        continue;
      }
      link.x = Math.min(200, Math.max(0, link.x + (next() - 0.5) * 8));
      link.y = Math.min(200, Math.max(0, link.y + (next() - 0.5) * 8));
      replication.view(c)?.setCenter(link.x, link.y);
      const sender = senders[c];
      if (sender !== undefined) {
        if (priorityOnly) inside(sender).selector.tookAll = false;
        else if (inside(sender).selector.tookAll) run.tookAll++;
      }
      const { data, record } = link.server.writePacket(now);
      hash.update(data);
      run.packets++;
      if (check !== undefined) check(senders[c]);
      const lost = next() < 0.15;
      if (!lost) link.client.readPacket(data, 0, data.length);
      link.inFlight.push({ record, lost });
      while (link.inFlight.length > 2) {
        const packet = link.inFlight.shift()!;
        if (!packet.lost && next() > 0.05) {
          link.server.acked(packet.record);
          if (check !== undefined) check(senders[c]);
        }
      }
    }
  }
  run.digest = hash.digest('hex');
  return run;
}

describe('InterestView ghostSlots', () => {
  it('follows the attached table through random enters, leaves, removals, inserts and frees', () => {
    const next = prng((SEED ^ 1) >>> 0);
    const capacity = 300;
    const interest = new InterestManager({
      world: { min: [0, 0], max: [100, 100], cellSize: 10, capacity },
      maxClients: 1,
    });
    const view = interest.addView(0, { enterRadius: 30 });
    const table = new GhostTable(capacity);
    view.attachGhostTable(table);
    const live = new Set<number>();
    let inserts = 0;
    let frees = 0;
    let returns = 0;
    for (let step = 0; step < 3000; step++) {
      const roll = next();
      const id = Math.floor(next() * capacity);
      if (roll < 0.3) {
        if (live.has(id)) interest.moveEntity(id, next() * 100, next() * 100);
        else {
          interest.addEntity(id, next() * 100, next() * 100);
          live.add(id);
        }
      } else if (roll < 0.4 && live.has(id)) {
        interest.removeEntity(id);
        live.delete(id);
      } else if (roll < 0.55) {
        view.setCenter(next() * 100, next() * 100);
        interest.update();
        // What the sender keeps: members that come back still have their ghost.
        for (let i = 0; i < view.entered.length; i++) if (table.find(view.entered.items[i]) >= 0) returns++;
      } else if (roll < 0.8 && view.count > 0) {
        // A create planned for a member: the sender inserts it and sets the member's column.
        const slot = Math.floor(next() * view.count);
        if (view.ghostSlots[slot] === 0) {
          view.ghostSlots[slot] = table.insert(view.ids[slot]) + 1;
          inserts++;
        }
      } else if (table.size > 0) {
        // A destroy acked: the sender frees the slot, and clears the column if the id is back.
        let slot = Math.floor(next() * table.slotCapacity);
        while (table.ids[slot] < 0) slot = (slot + 1) % table.slotCapacity;
        const ghost = table.ids[slot];
        table.remove(slot);
        if (view.isMember(ghost)) view.ghostSlots[view.slotOf(ghost)] = 0;
        frees++;
      }
      checkColumn(view, table, `step ${step}`);
    }
    assert.ok(view.ids.length > 64, 'the view grew past its first slots');
    assert.ok(
      inserts > 100 && frees > 100 && returns > 10,
      `${inserts} inserts, ${frees} frees, ${returns} returns`,
    );
  });
});

describe('GhostSender selection', () => {
  it("keeps every view's ghostSlots equal to its ghost table's lookup, packet after packet", () => {
    let checks = 0;
    runScene((SEED ^ 2) >>> 0, 300, 30, false, (sender) => {
      checkColumn(sender.view, inside(sender).table, 'after a packet or an ack');
      checks++;
    });
    assert.ok(checks > 3000);
  });

  for (const bytesPerPacket of [120, 400, 1150]) {
    it(`selectAll writes the bytes the priority order writes (${bytesPerPacket} B a packet)`, () => {
      const seed = (SEED + bytesPerPacket) >>> 0;
      const kbps = (bytesPerPacket * 8 * 60) / 1000;
      const fast = runScene(seed, bytesPerPacket, kbps, false);
      const ordered = runScene(seed, bytesPerPacket, kbps, true);
      assert.equal(fast.packets, ordered.packets);
      assert.ok(fast.tookAll > fast.packets / 10, `selectAll tried ${fast.tookAll} times`);
      assert.equal(fast.digest, ordered.digest);
    });
  }

  it('selectAll writes the bytes the priority order writes under a custom importance', () => {
    // Priorities accumulated before selectAll (it cannot add them itself), and coarse: more ties.
    const importance: Importance = (_view, id, distance) => (id % 3) + Math.floor(distance / 10);
    const seed = (SEED ^ 5) >>> 0;
    const fast = runScene(seed, 1150, 552, false, undefined, importance);
    const ordered = runScene(seed, 1150, 552, true, undefined, importance);
    assert.ok(fast.tookAll > fast.packets / 10, `selectAll tried ${fast.tookAll} times`);
    assert.equal(fast.digest, ordered.digest);
  });
});
