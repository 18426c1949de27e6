/**
 * The W4 arena scene (bench/w4/scene.ts) is a pure function of its seed and keeps its rules (on
 * the map, 0.25 m a tick, headings in [0, 2π)); its quantized integers are the ones ghostwire's
 * W4 schema codec sends; and the @colyseus/schema StateView peer (bench/w4/colyseus.ts) delivers
 * to every client exactly the server's state of its relevant entities, through enters and leaves,
 * as ghostwire's W4 arena (bench/w4/arena.ts) does on the same scene.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { W4Arena } from '../../bench/w4/arena.js';
import { runColyseusW4 } from '../../bench/w4/colyseus.js';
import {
  followedEntity,
  type QuantizedEntity,
  quantizeEntity,
  W4_ENTITY,
  W4_HEADING_SPEC,
  W4_MAP,
  W4_POSITION_SPEC,
  W4_SPEED,
  W4Scene,
} from '../../bench/w4/scene.js';
import { compile } from '../../src/schema/codec.js';
import { dequantize } from '../../src/serialize/compressed-float.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('W4 scene tests');
const STEP = W4_SPEED / 20;

const snapshot = (s: W4Scene) => [[...s.x], [...s.y], [...s.heading], [...s.kind]];

describe('W4 scene', () => {
  it('replays exactly from its seed, and another seed gives another world', () => {
    const a = new W4Scene(300, SEED);
    const b = new W4Scene(300, SEED);
    const c = new W4Scene(300, (SEED + 1) >>> 0);
    for (let tick = 0; tick < 40; tick++) {
      a.step();
      b.step();
      c.step();
    }
    assert.deepEqual(snapshot(a), snapshot(b));
    assert.notDeepEqual(snapshot(a).slice(0, 3), snapshot(c).slice(0, 3));
    assert.equal(a.tick, 40);
  });

  it('walks 0.25 m a tick (or stays at a wall) on the map, headings in [0, 2π), kinds fixed', () => {
    const s = new W4Scene(2000, SEED);
    const kinds = [...s.kind];
    let moved = 0;
    for (let tick = 0; tick < 200; tick++) {
      const x = Float64Array.from(s.x);
      const y = Float64Array.from(s.y);
      s.step();
      for (let id = 0; id < s.count; id++) {
        assert.ok(s.x[id] >= 0 && s.x[id] <= W4_MAP && s.y[id] >= 0 && s.y[id] <= W4_MAP);
        assert.ok(s.heading[id] >= 0 && s.heading[id] < 2 * Math.PI, `heading ${s.heading[id]}`);
        const d = Math.hypot(s.x[id] - x[id], s.y[id] - y[id]);
        assert.ok(d <= STEP + 1e-9, `entity ${id} moved ${d} m in a tick`);
        if (Math.abs(d - STEP) < 1e-9) moved++;
      }
    }
    assert.deepEqual([...s.kind], kinds);
    // Only entities at a wall on that tick may step short.
    assert.ok(moved > s.count * 200 * 0.98, `${moved} full steps`);
  });

  it('quantizes to the integers the W4 schema codec sends', () => {
    const codec = compile(W4_ENTITY);
    const s = new W4Scene(200, SEED);
    s.step();
    const q: QuantizedEntity = { x: 0, y: 0, heading: 0, kind: 0 };
    for (let id = 0; id < s.count; id++) {
      quantizeEntity(s, id, q);
      const sent = { x: s.x[id], y: s.y[id], heading: s.heading[id], kind: s.kind[id] };
      const decoded = codec.decode(codec.encode(sent));
      assert.ok(decoded.ok);
      assert.deepEqual(decoded.value, {
        x: dequantize(q.x, W4_POSITION_SPEC),
        y: dequantize(q.y, W4_POSITION_SPEC),
        heading: dequantize(q.heading, W4_HEADING_SPEC),
        kind: q.kind,
      });
    }
    assert.equal(codec.maxBits, 17 + 17 + 10 + 2);
  });
});

describe('W4 through @colyseus/schema StateView', () => {
  it("gives every client exactly the server's state of its relevant entities", () => {
    // A wide radius on a small world, so entities enter and leave the views during the run.
    const r = runColyseusW4({
      entities: 500,
      clients: 8,
      ticks: 60,
      warmupTicks: 1,
      seed: SEED,
      radius: 300,
      verifyClients: 8,
    });
    assert.equal(r.mismatches, 0, r.firstMismatch);
    assert.ok(r.relevantPerClient > 5, `${r.relevantPerClient} relevant per client`);
    assert.ok(r.compared >= 61 * 8 * 5, `${r.compared} entity states compared`);
    assert.ok(r.churnPerClientPerTick > 0, 'no entity entered or left a view');
    // Every relevant entity moves every tick: x, y and heading change, so each costs bytes.
    assert.ok(r.bytesPerClientPerTick > r.relevantPerClient * 10, `${r.bytesPerClientPerTick} B`);
  });
});

describe("ghostwire's W4 arena on the shared scene", () => {
  it('follows the shared rule and mirrors exactly the quantized scene of each relevant entity', () => {
    // Few entities, so every relevant one fits each packet and the mirrors are current each tick.
    const arena = new W4Arena(3, SEED, 1500);
    arena.connect();
    const q: QuantizedEntity = { x: 0, y: 0, heading: 0, kind: 0 };
    let compared = 0;
    for (let tick = 0; tick < 30; tick++) {
      arena.advanceClock();
      arena.game();
      arena.serverTick();
      arena.updateClients();
      if (tick < 5) continue;
      for (const { client, mirror } of arena.clients) {
        const index = client.client.clientIndex;
        const view = arena.replication.view(index)!;
        assert.equal(view.follow, followedEntity(index, 1500));
        assert.equal(mirror.size, view.count, `client ${index}, tick ${tick}: ghosts and relevant entities`);
        for (let slot = 0; slot < view.count; slot++) {
          const id = view.ids[slot];
          quantizeEntity(arena.scene, id, q);
          const expected = {
            x: dequantize(q.x, W4_POSITION_SPEC),
            y: dequantize(q.y, W4_POSITION_SPEC),
            heading: dequantize(q.heading, W4_HEADING_SPEC),
            kind: q.kind,
          };
          assert.deepEqual(mirror.ghost(id)?.value, expected, `client ${index}, tick ${tick}, entity ${id}`);
          compared++;
        }
      }
    }
    assert.ok(compared > 3 * 25 * 10, `${compared} ghost values compared`);
  });
});
