/**
 * `node dist/bench/capacity/colyseus-main.js --players N --seconds S [--warmup W] [--bot-processes B]
 * [--seed X] [--verify] [--buffer-kb K] [--profile-dir D]`: one Colyseus capacity run (colyseus.ts), a progress line
 * each second, then its report as a table and as JSON.
 */
import { parseArgs } from 'node:util';
import { runColyseusCapacity } from './colyseus.js';
import { SEATS } from './colyseus-state.js';

const { values } = parseArgs({
  options: {
    players: { type: 'string', default: '64' },
    seconds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    /** Default: one per 64 players. */
    'bot-processes': { type: 'string' },
    seed: { type: 'string', default: '1' },
    verify: { type: 'boolean', default: false },
    'buffer-kb': { type: 'string', default: '0' },
    /** Writes a --cpu-prof profile of the server process into this directory. */
    'profile-dir': { type: 'string' },
  },
});
const int = (name: keyof typeof values) => {
  const v = Number(values[name]);
  if (!Number.isInteger(v)) throw new RangeError(`--${name} must be an integer, got ${values[name]}`);
  return v;
};

const run = await runColyseusCapacity({
  players: int('players'),
  roomSize: SEATS,
  seconds: int('seconds'),
  warmupSeconds: int('warmup'),
  botProcesses:
    values['bot-processes'] === undefined
      ? Math.max(1, Math.ceil(int('players') / 64))
      : int('bot-processes'),
  seed: int('seed'),
  verify: values.verify,
  encoderBufferBytes: int('buffer-kb') * 1024,
  serverNodeArgs:
    values['profile-dir'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values['profile-dir']}`],
  progress: (line) => console.log(line),
});
const f = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : String(v));
console.log(
  [
    `Colyseus arena, ${run.connected}/${run.players} players in rooms of ${run.roomSize}, ${f(run.windowSeconds)} s window`,
    `  server CPU          ${f(run.serverCpuSeconds, 2)} s = ${f(run.cpuUsPerPlayerTick)} µs per player per tick`,
    `  players per core    ${run.playersPerCore === null ? '— (did not keep up)' : f(run.playersPerCore, 0)}`,
    `  kept up             ${run.keptUp} (ticks on time ${f(run.ticksOnTimeRatio * 100)}%, worst client ${f(run.deliveredRatio * 100)}% of patches, ELU ${f(run.eventLoopUtilization * 100)}%)`,
    `  bytes per player    ${f(run.downBytesPerPlayerSecond / 1000, 2)} kB/s down, ${f(run.upBytesPerPlayerSecond / 1000, 2)} kB/s up (${run.bytesCounted})`,
    `  join                p50 ${f(run.joinP50Ms, 0)} ms, p99 ${f(run.joinP99Ms, 0)} ms`,
    `  bots' CPU           ${f(run.botCpuSeconds, 2)} s`,
    `  inputs taken        ${f(run.inputsTakenRatio * 100)}% of avatar-ticks; zaps ${run.zaps}, present hits ${run.hits}`,
    `  checks              ${run.checksCompared} compared, ${run.checksMismatched} differed`,
    ...run.notes.map((n) => `  note: ${n}`),
  ].join('\n'),
);
console.log(JSON.stringify(run));
