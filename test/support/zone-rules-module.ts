/** The zone test game's rules as a zoned world's rules module (zone threads import it): seeded from GW_ZONE_TEST_SEED. */
import type { ZoneInfo } from '../../src/zones/zone-rules-module.js';
import { zoneRules } from './zone-game.js';

export const WANDERERS = Number(process.env.GW_ZONE_TEST_WANDERERS ?? 40);

export default function rules(zone: ZoneInfo) {
  return zoneRules(zone.zone, Number(process.env.GW_ZONE_TEST_SEED ?? 1) >>> 0, WANDERERS);
}
