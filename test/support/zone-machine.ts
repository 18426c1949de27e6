/**
 * One "machine" of a zoned world on Redis, as a child process for the tests: runs the zones it is
 * given (no gateway) until killed. argv: redis URL, origin ms ('-': the world's, from Redis), zones (comma-separated), lease ms.
 * Prints "ready" once its ZonedWorld started (its zones run, or stand by while held elsewhere).
 */
import { ZonedWorld } from '../../src/zones/zoned-world.js';
import { SIDE } from './zone-game.js';

const [redis, origin, zones, lease] = process.argv.slice(2);
const world = await ZonedWorld.start({
  rules: new URL('./zone-rules-module.js', import.meta.url),
  bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
  columns: 2,
  rows: 2,
  interestRadius: 30,
  handoff: { margin: 2, dwellSeconds: 0.3 },
  redis,
  ...(origin === '-' ? {} : { originMs: Number(origin) }),
  runZones: zones.split(',').map(Number),
  gateway: false,
  leaseTtlMs: Number(lease),
  snapshotTicks: 5,
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => void world.close().then(() => process.exit(0)));
