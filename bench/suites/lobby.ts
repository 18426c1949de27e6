/**
 * The lobby workload (issue 16): a few hundred players with names, an enum, an optional field and a
 * small nested inventory, encoded and decoded by every contestant in bench/lobby/contestants.ts,
 * interleaved. Each contestant's decode is checked against the input once before timing; every
 * timed batch is checked by size (encode) or digest (decode).
 */
import { check, fmt, measure, type SuiteContext, type Task } from '../harness.js';
import { GHOSTWIRE_FRESH, LOBBY_CONTESTANTS } from '../lobby/contestants.js';
import { digestLobby, generateLobby, LOBBY_PLAYERS } from '../lobby/data.js';
import { verifyLobby } from '../lobby/verify.js';
import { codecTasks } from '../support/codec-tasks.js';

export function runLobby(ctx: SuiteContext): void {
  const lobby = generateLobby();
  const players = lobby.players.length;
  check(players === LOBBY_PLAYERS, `lobby generated ${players} players`);
  const expectedDigest = digestLobby(lobby);
  const contestants = LOBBY_CONTESTANTS.map((make) => make());
  const baseline = GHOSTWIRE_FRESH;

  const sizes: Record<string, number> = {};
  const encodeTasks: Task[] = [];
  const decodeTasks: Task[] = [];
  for (const c of contestants) {
    c.prepare(lobby);
    // Checked once, untimed: the encoding decodes back to the input, and is the same every time.
    const tasks = codecTasks(c, players, expectedDigest);
    const first = tasks.first;
    const decoded = c.decode(first);
    verifyLobby(c.name, lobby, c.toLobby(decoded), c.precision);
    const digest = c.digest(decoded);
    check(digest === expectedDigest, `${c.name}: decoded digest ${digest}, expected ${expectedDigest}`);
    sizes[c.name] = first.length;

    encodeTasks.push(tasks.encode);
    decodeTasks.push(tasks.decode);
  }

  const results = measure([...encodeTasks, ...decodeTasks], ctx.options);
  const encodeResults = results.slice(0, encodeTasks.length);
  const decodeResults = results.slice(encodeTasks.length);

  const bytesPerPlayer: Record<string, string> = {};
  const totalBytes: Record<string, string> = {};
  for (const c of contestants) {
    bytesPerPlayer[c.name] = fmt(sizes[c.name] / players);
    totalBytes[c.name] = String(sizes[c.name]);
  }
  ctx.record('bytes', sizes);
  const sizeColumns = [
    { header: 'bytes/player', values: bytesPerPlayer },
    { header: 'bytes', values: totalBytes },
  ];
  ctx.table({
    title: `Lobby encode: ${players} players per iteration`,
    unit: 'player',
    baseline,
    results: encodeResults,
    columns: sizeColumns,
  });
  ctx.table({
    title: `Lobby decode: ${players} players per iteration`,
    unit: 'player',
    baseline,
    results: decodeResults,
    columns: [sizeColumns[0]],
    notes: [
      `"time vs ${baseline}" is how many times faster ${baseline} is (the issue's target: >= 2x against avsc both ways).`,
      'Each decode was checked against the input before timing (ghostwire: floats within half a step; peers: as float32).',
      'What is measured:',
      ...contestants.map((c) => `  ${c.name}: ${c.description}`),
    ],
  });
  const speedup = (list: typeof results, name: string) =>
    list.find((r) => r.name === name)!.median / list.find((r) => r.name === baseline)!.median;
  const ratios: Record<string, { encode: number; decode: number }> = {};
  for (const c of contestants) {
    if (c.name === baseline) continue;
    ratios[c.name] = { encode: speedup(encodeResults, c.name), decode: speedup(decodeResults, c.name) };
  }
  ctx.record('speedup', ratios);
  const avsc = ratios.avsc;
  ctx.note(
    `${baseline} vs avsc: encode ${avsc.encode.toFixed(2)}x, decode ${avsc.decode.toFixed(2)}x as fast (target >= 2x both)\n`,
  );
}
