/**
 * docs/latency.md's client, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts); what it leaves to the reader is declared around it so that tsc
 * checks it.
 */
import type { DatagramTransport } from 'ghostwire/transport';
import type { MessageFactory } from 'ghostwire/channels';
import type { MoveValue, Place } from './game.js';

declare const clientOptions: { transport: DatagramTransport };
declare const factory: MessageFactory;
declare const myPlayerId: number; // the server tells it (a message)
declare function readControls(tick: number): MoveValue;
declare function drawPlayer(state: Place): void;
declare function drawRunner(id: number, state: Place): void;
declare function requestFrame(frame: () => void): void;

// #region docs
import { ClientMirror, isGhostOf } from 'ghostwire/replication';
import { GhostSampler, InputSender, LatencyClient, Predictor } from 'ghostwire/latency';
import { MessageClient } from 'ghostwire/channels';
import { Move, Player, Runner, runnerLerp, TICK_RATE, types, walk } from './game.js';

const samplers = new Map<number, GhostSampler<Place & { teleported: boolean }>>(); // one per remote ghost
const mirror = new ClientMirror({
  types,
  capacity: 1024,
  onCreate: (ghost) => {
    if (isGhostOf(ghost, Runner)) samplers.set(ghost.id, new GhostSampler(runnerLerp));
  },
  onDestroy: (ghost) => samplers.delete(ghost.id),
});
const inputs = new InputSender({ schema: Move });
const client = new MessageClient({ ...clientOptions, factory, channels: [mirror.channel, inputs.channel] });
const latency = new LatencyClient({
  tickRate: TICK_RATE,
  mirror,
  inputs,
  predictor: new Predictor({ schema: Player.schema, inputSchema: Move, simulate: walk, tickRate: TICK_RATE }),
  rttSample: () => client.client.endpoint?.rttSample ?? 0,
});
latency.follow(myPlayerId); // predict this ghost; the others are interpolated

function frame(): void {
  const now = performance.now() / 1000; // monotonic seconds
  client.update(now); // receive: snapshots into the mirror, input reports into `inputs`
  latency.frame(now, readControls); // sample the clock, reconcile, push + predict each due tick, steer
  const me = latency.shown(); // null until the prediction starts: within a round trip or so of joining
  if (me !== null) drawPlayer(me);
  const renderTick = latency.renderTick; // NaN until two server ticks arrived (sections or input reports)
  if (!Number.isNaN(renderTick))
    for (const [id, sampler] of samplers) {
      const shown = sampler.sample(mirror.history(id)!, renderTick);
      if (shown !== null) drawRunner(id, shown);
    }
  requestFrame(frame);
}
frame();
// #endregion
