/**
 * A zoned world carries whole entities between zones and to gateways: a game that declares
 * per-field visibility is refused at the zone, with a reason, rather than leaking its private
 * fields there.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineGame } from '../../src/game/define-game.js';
import { t } from '../../src/schema/schema.js';
import { ZoneSimulation } from '../../src/zones/zone-simulation.js';

describe('zones and visibility', () => {
  it('a zone refuses a game with private fields; the same game without them is hosted', () => {
    const state = t.object({ x: t.uint8(), ammo: t.uint8() });
    const spec = { input: t.object({ k: t.bool() }), step: <S>(a: S) => a };
    const secret = defineGame({
      name: 'z',
      entities: { avatar: { state, visibility: { ammo: 'owner' } } },
      ...spec,
    });
    const plain = defineGame({ name: 'z', entities: { avatar: { state } }, ...spec });
    assert.throws(() => new ZoneSimulation(secret.rules({}), { zone: 0 }), /declares visibility/);
    assert.doesNotThrow(() => new ZoneSimulation(plain.rules({}), { zone: 0 }));
  });
});
