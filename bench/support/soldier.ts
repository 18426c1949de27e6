/**
 * The entity the lag-compensation and interpolation benches and tests rewind: a soldier with a
 * position, a facing, a hit radius, hit points and a teleport flag.
 */

import { type Infer, t } from '../../src/index.js';
import { defineEntity } from '../../src/replication/index.js';

export const Soldier = t.object({
  position: t.vector3(t.float(-512, 512, 0.01)),
  facing: t.quaternion(),
  radius: t.float(0, 4, 0.05),
  hp: t.int(0, 100),
  teleported: t.bool(),
});
export type Soldier = Infer<typeof Soldier>;
export const SoldierType = defineEntity('soldier', Soldier);
