/**
 * `node --expose-gc dist/bench/w4/main.js [--clients N] [--ticks N] [--warmup N]`: the W4 arena
 * through the real stack (bench/w4/arena.ts, on the shared scene) with any number of clients; prints what the `w4`
 * bench suite prints. Profile the server with `node --cpu-prof --expose-gc dist/bench/w4/main.js`.
 */
import { commandLine, flagValue, positiveIntegerFlag } from '../../scripts/cli.js';
import { describeW4, runW4Arena } from './measure.js';

const args = commandLine({
  name: 'node --expose-gc dist/bench/w4/main.js',
  description: 'The W4 arena: server CPU per tick, kbit/s and memory per client for N connected clients.',
  flags: {
    clients: { arg: 'N', help: 'connected clients (default 1000)' },
    ticks: { arg: 'N', help: 'measured ticks (default 120)' },
    warmup: { arg: 'N', help: 'warm-up ticks before them (default 40)' },
  },
});
const clients = flagValue(() => positiveIntegerFlag('--clients', args.clients, 1000));
const ticks = flagValue(() => positiveIntegerFlag('--ticks', args.ticks, 120));
const warmupTicks = flagValue(() => positiveIntegerFlag('--warmup', args.warmup, 40));
const result = runW4Arena({ clients, ticks, warmupTicks }, (line) => console.log(line));
for (const line of describeW4(result)) console.log(line);
