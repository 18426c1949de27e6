/**
 * docs/latency.md's shared module, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts): what the server (server.ts) and the client (client.ts) agree on.
 */
// #region docs
import { compileInterpolator } from 'ghostwire/latency';
import { defineEntity } from 'ghostwire/replication';
import { type Infer, t } from 'ghostwire';

export const TICK_RATE = 60; // both ends tick at the same rate
const coordinate = t.float(-512, 512, 1 / 64);
const place = t.object({ x: coordinate, y: coordinate });
export type Place = Infer<typeof place>;

export const Player = defineEntity('player', place); // predicted by its owner, interpolated by others
export const Runner = defineEntity('runner', t.object({ x: coordinate, y: coordinate, teleported: t.bool() }));
export const types = [Player, Runner];

/** The input of one tick: quantized as the server will receive it. */
export const Move = t.object({ mx: t.int(-1, 1), my: t.int(-1, 1), fire: t.bool(), aimX: coordinate, aimY: coordinate });
export type MoveValue = Infer<typeof Move>;

/** The game's deterministic step: the server runs it, the client predicts and replays with it. */
export function walk(state: Place, input: MoveValue): Place {
  const clamp = (v: number) => Math.max(-500, Math.min(500, v));
  return { x: clamp(state.x + input.mx * 0.25), y: clamp(state.y + input.my * 0.25) };
}

/** How runners are blended: by the clients' samplers and by the server's rewind alike. */
export const runnerLerp = compileInterpolator(Runner.schema, { teleportField: 'teleported' });
// #endregion
