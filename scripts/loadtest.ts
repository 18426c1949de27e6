/**
 * `npm run loadtest`: bots in child processes play the demo's arena rooms on room-server child
 * processes, through the whole join path (HTTP auth, a seat by joinOrCreate or matchmaking, a
 * netcode connection over UDP, replication and inputs at 20 Hz), leaving and coming back. A progress
 * line each second; the summary ends with players per core, printed only when the servers kept up
 * over the steady window (scripts/loadtest-window.ts). `npm run loadtest -- --help`.
 */
import { commandLine, flagValue, positiveIntegerFlag, rangeFlag, resolveSeed } from './cli.js';
import { formatSummary } from './loadtest-report.js';
import { runLoadtest } from './loadtest-run.js';

const args = commandLine({
  name: 'npm run loadtest --',
  description:
    "Bots (child processes) authenticate, get a seat, connect over UDP and play the arena at 20 Hz on\nroom-server child processes, leave and come back; prints a line a second and a summary. Players per core only\nwhen the servers kept up over the steady window (after the ramp and a warm-up): >= 95% of room ticks on time and\n>= 95% of the state packets every client expected, with the room processes' event-loop utilisation beside it.\nLoss, one definition in both: 1 − datagrams arrived (delivered or queued) / sent, both directions, every socket counted at one instant\n(the line: from the start to the latest instant every process has reported; the summary: the whole run).",
  flags: {
    clients: { arg: 'N', help: 'bots (default 200)' },
    seconds: { arg: 'S', help: 'how long the bots play (default 30)' },
    processes: { arg: 'N', help: 'room-server processes (default 1)' },
    'bot-processes': { arg: 'N', help: 'bot processes (default 1)' },
    mode: { arg: 'join|matchmake', help: 'how bots get a seat (default join: joinOrCreate)' },
    redis: {
      arg: 'URL|local',
      help: 'a RedisDirectory at URL, or on a redis-server started here (default: embedded)',
    },
    'room-size': { arg: 'N', help: 'seats per room, 1 to 64 (default 32)' },
    session: { arg: 'S', help: 'mean session before a bot leaves and comes back (default 20)' },
    ramp: {
      arg: 'S',
      help: 'arrivals spread over this long (default min(seconds/3, clients/100), at least 1)',
    },
    seed: { arg: 'N', help: "the bots' uint32 seed (default: GW_SEED, else fresh)" },
    warmup: { arg: 'S', help: 'seconds after the ramp (and one more) before the steady window (default 2)' },
    bots: {
      arg: 'light|full',
      help: 'light bots (default: no ghost values built) or full ones (a ClientMirror)',
    },
    json: { kind: 'boolean', help: 'print the summary as JSON too' },
  },
});
const options = flagValue(() => {
  const mode = args.mode ?? 'join';
  if (mode !== 'join' && mode !== 'matchmake') throw new Error('--mode must be join or matchmake');
  const bots = args.bots ?? 'light';
  if (bots !== 'light' && bots !== 'full') throw new Error('--bots must be light or full');
  return {
    clients: positiveIntegerFlag('--clients', args.clients, 200),
    seconds: rangeFlag('--seconds', args.seconds, 30, 1, 3600),
    processes: positiveIntegerFlag('--processes', args.processes, 1),
    botProcesses: positiveIntegerFlag('--bot-processes', args['bot-processes'], 1),
    mode: mode as 'join' | 'matchmake',
    redis: args.redis,
    roomSize: Math.floor(rangeFlag('--room-size', args['room-size'], 32, 1, 64)),
    sessionSeconds: rangeFlag('--session', args.session, 20, 0.5, 1e6),
    rampSeconds: args.ramp === undefined ? undefined : rangeFlag('--ramp', args.ramp, 1, 0, 3600),
    seed: resolveSeed(args.seed),
    warmupSeconds: rangeFlag('--warmup', args.warmup, 2, 0, 3600),
    bots: bots as 'light' | 'full',
  };
});
console.log(`loadtest: seed ${options.seed}`);
const summary = await runLoadtest({ ...options, onProgress: (line) => console.log(line) });
console.log(formatSummary(summary));
if (args.json) console.log(JSON.stringify(summary));
process.exit(0);
