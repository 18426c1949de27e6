/**
 * One "machine" of the zones bench's world on Redis, in a process of its own: runs the zones it is
 * given (no gateway, one zone thread) against the bench's redis-server until told to quit:
 * `node dist/bench/zones/zone-host.js --redis URL --origin MS --zones 0,2 --columns C --rows R
 * --wanderers N --seed S [--max-seconds 600]`.
 *
 * Writes JSON lines: `ready` once its zones run; a `mark` reply {zones, cpuUser, cpuSystem} to
 * each `{"type":"mark","id":n}`, where `zones` is its ZonedWorld's `stats().zones` (each zone's
 * last report) and the CPU is this whole process's (every thread); exits on `{"type":"quit"}`
 * (each zone writes a last snapshot), when stdin closes, or after --max-seconds.
 */
import { ZonedWorld } from '../../src/zones/zoned-world.js';
import { argumentReader, emit, exitAfter, readCommands } from '../support/child-main.js';
import { cpuSample } from '../support/process-stats.js';
import { INTEREST_RADIUS, SIDE } from './zone-bench-game.js';

const argument = argumentReader('zone-host');
process.env.GW_ZONES_BENCH_WANDERERS = argument('wanderers');
process.env.GW_ZONES_BENCH_SEED = argument('seed');

const world = await ZonedWorld.start({
  rules: new URL('./zone-bench-rules.js', import.meta.url),
  bounds: { minX: 0, minY: 0, maxX: SIDE, maxY: SIDE },
  columns: Number(argument('columns')),
  rows: Number(argument('rows')),
  interestRadius: INTEREST_RADIUS,
  redis: argument('redis'),
  originMs: Number(argument('origin')),
  runZones: argument('zones').split(',').map(Number),
  gateway: false,
  threads: 1,
});

/** Out at once (stdin closed, or the watchdog): the zones' leases lapse; the bench is done with them. */
function exit(code: number): never {
  process.exit(code);
}
exitAfter('zone-host', Number(argument('max-seconds', '600')), exit);

readCommands<{ type?: string; id?: number }>('zone-host', exit, (message) => {
  if (message.type === 'mark')
    emit({ type: 'mark', id: message.id, zones: world.stats().zones, ...cpuSample() });
  // Asked to quit: each zone writes a last snapshot and gives its lease up first.
  else if (message.type === 'quit') void world.close().finally(() => exit(0));
});
emit({ type: 'ready' });
