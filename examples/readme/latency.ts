/**
 * The README's latency example, verbatim between the region markers; what it leaves to the reader
 * is declared around it so that tsc checks it (test/project/readme-examples.test.ts). The full client and
 * server are examples/latency/client.ts and server.ts.
 */
import type { ClientMirror, Entity, ServerWorld } from 'ghostwire/replication';
import type { MessageClient } from 'ghostwire/channels';

declare const client: MessageClient; // channels: [mirror.channel, inputs.channel]
declare const mirror: ClientMirror;
declare const world: ServerWorld;
declare const now: number;
declare const myPlayerId: number;
declare const otherId: number;
declare const clientIndex: number;
declare const tick: number;
declare const player: Entity<{ x: number; y: number }>;
declare function readControls(tick: number): { mx: number; my: number };
declare function draw(state: { x: number; y: number }): void;

// #region readme
import { compileInterpolator, GhostSampler, InputReceiver, InputSender, LatencyClient, Predictor } from 'ghostwire/latency';
import { defineEntity } from 'ghostwire/replication';
import { t } from 'ghostwire';

const Player = defineEntity('player', t.object({ x: t.float(-512, 512, 1 / 64), y: t.float(-512, 512, 1 / 64) }));
const Move = t.object({ mx: t.int(-1, 1), my: t.int(-1, 1) });           // one tick's input
const walk = (p: { x: number; y: number }, m: { mx: number; my: number }) => ({ x: p.x + m.mx / 4, y: p.y + m.my / 4 });

// Client: predicts its player ahead of the server, shows the others an adaptive delay behind it.
const inputs = new InputSender({ schema: Move });                          // a channel, beside mirror.channel
const latency = new LatencyClient({
  tickRate: 60, mirror, inputs, rttSample: () => client.client.endpoint?.rttSample ?? 0,
  predictor: new Predictor({ schema: Player.schema, inputSchema: Move, simulate: walk, tickRate: 60 }),
});
latency.follow(myPlayerId);                                                // the ghost to predict
const other = new GhostSampler(compileInterpolator(Player.schema));        // one per remote ghost
// each frame, after client.update(now):
latency.frame(now, readControls);           // clock sync, reconcile, then each due tick: push its input, predict
const me = latency.shown();                 // the prediction, corrections smoothed; null until it starts
if (me !== null) draw(me);
const shown = Number.isNaN(latency.renderTick) ? null : other.sample(mirror.history(otherId)!, latency.renderTick);
if (shown !== null) draw(shown);              // interpolated at the render tick (NaN until 2 server ticks)

// Server: one input per client per tick, the same step, then the world's tick.
const received = new InputReceiver({ schema: Move, tickRate: 60 });        // the matching channel
const input = received.take(clientIndex, tick);   // the next input tick (the last repeated when late); null before any
if (input !== null) world.set(player, walk(world.get(player), input));
world.tick();
// A shot in that input: rewind to what the client showed, received.viewTick(clientIndex) (LagCompensation).
// #endregion
