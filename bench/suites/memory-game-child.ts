/**
 * Child of the `memory` suite's GameServer figure (memory-game.ts): a GameServer running the demo
 * arena at its defaults (16 players), served over UDP on loopback, in a process of its own so that
 * the clients' memory is not counted. On `measure` it answers with its heap + array buffers after
 * full collections and the code V8 compiled so far (taken out of the per-client figure, as W4 does).
 * Run with --expose-gc.
 */
import { getHeapCodeStatistics } from 'node:v8';
import '../../src/node.js';
import { demoRules } from '../../demo/rules.js';
import { GameServer } from '../../src/game/game-server.js';
import { emit, exitAfter, readCommands } from '../support/child-main.js';

const PROGRAM = 'memory-game-child';
const gc = (globalThis as { gc?: () => void }).gc;

function measure(server: GameServer): Record<string, unknown> {
  gc?.();
  gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  const code = getHeapCodeStatistics();
  return {
    type: 'measured',
    bytes: heapUsed + arrayBuffers,
    codeBytes: code.code_and_metadata_size + code.bytecode_and_metadata_size,
    players: server.stats().players,
  };
}

const server = await GameServer.start(
  demoRules(1, { zaps: 0, hits: 0 }, () => {}),
  // Defaults, but for the limits per address and join rate: every bot joins from 127.0.0.1.
  { port: 0, transports: ['udp'], maxPlayersPerAddress: 16, joinRate: { burst: 1000, perSecond: 1000 } },
);
const exit = (code: number): never => process.exit(code);
exitAfter(PROGRAM, 120, exit);
readCommands<{ type?: string }>(PROGRAM, exit, (message) => {
  if (message.type === 'measure') emit(measure(server));
  else if (message.type === 'quit') void server.close().then(() => exit(0));
});
emit({ type: 'ready', url: server.url, gc: gc !== undefined });
