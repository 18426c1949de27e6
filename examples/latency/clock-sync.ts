/**
 * docs/latency.md's clock-sync-by-hand example, verbatim between the region markers (checked by
 * test/project/readme-examples.test.ts); what it leaves to the reader is declared around it so that tsc
 * checks it. LatencyClient does this wiring for a predicting client.
 */
import type { ClientMirror } from 'ghostwire/replication';
import type { MessageClient } from 'ghostwire/channels';

declare const client: MessageClient;
declare const mirror: ClientMirror;
declare const bufferTicks: number;
declare function simulate(tick: number): void;
declare function render(alpha: number): void;
declare function requestFrame(frame: () => void): void;

// #region docs
import { ClockSync, TickClock } from 'ghostwire/latency';

const clock = new TickClock({ tickRate: 60 });              // the server runs the same tick rate
const sync = new ClockSync(clock, {
  onJump: (reason, from, to) => console.log(`clock ${reason}: ${from.toFixed(1)} -> ${to.toFixed(1)}`),
});
let sampledTick = -1;

function frame(): void {
  const now = performance.now() / 1000;                     // monotonic seconds
  client.update(now);                                       // receive: the mirror applies snapshots
  const rttMs = client.client.endpoint?.rttSample ?? 0;     // the newest round-trip sample, ms
  if (mirror.newestTick !== sampledTick) {                  // a newer snapshot: one sample
    sampledTick = mirror.newestTick;
    sync.addSample(now, sampledTick, rttMs);
  }
  clock.advance(now, simulate);                             // simulate(tick) for each due tick
  // Prediction runs ahead of the server by the one-way delay plus a small buffer.
  sync.update(now, sync.oneWayTicks + bufferTicks);
  render(clock.alpha);                                      // between tick and tick + 1
  requestFrame(frame);
}
frame();
// #endregion
