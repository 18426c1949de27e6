/**
 * docs/replication.md's and docs/game.md's recording, replay and kill-cam snippets, verbatim
 * between the region markers (checked by test/project/readme-examples.test.ts); what they leave
 * to the reader is declared around them so that tsc checks them.
 */
import { writeFileSync } from 'node:fs';
import type { GameClient, GamePlayer, ReplayPlayer as GameReplay } from 'ghostwire';
import { ReplayPlayer } from 'ghostwire/latency';
import type { GameServer } from 'ghostwire/node';
import type { AnyEntityType, AnyEventType, ReplicationServer, ServerWorld } from 'ghostwire/replication';

declare const server: GameServer;
// biome-ignore lint/suspicious/noExplicitAny: any game's client
declare const client: GameClient<any>;
declare const bytes: Uint8Array;
declare function showKillcam(replay: GameReplay, follow: number): void;
declare const replication: ReplicationServer;
declare const world: ServerWorld;
declare const types: readonly AnyEntityType[];
declare const events: readonly AnyEventType[];
declare const capacity: number;
declare const frameSeconds: number;
declare const id: number;
declare function draw(value: unknown): void;

// #region docs
const recording = server.record({ keepSeconds: 90, keyframeSeconds: 5 }); // captured every tick from now on
writeFileSync('last-minute.gwr', recording.save({ seconds: 60 })); // a .gwr file
// #endregion

// #region docs
// in a hook, when `killer` killed `victim`:
function onKill(victim: GamePlayer, killer: GamePlayer): void {
  server.killcam(victim, { seconds: 5, follow: killer.entity }); // no need to await
}
// or, to know what became of it (the promise never rejects):
async function onKillReported(victim: GamePlayer, killer: GamePlayer): Promise<void> {
  const result = await server.killcam(victim, { follow: killer.entity });
  if (!result.sent) console.log(`no kill-cam: ${result.reason}`); // 'busy', 'viewer-left', 'too-large', 'closed'
}
// #endregion

// #region docs
client.onKillcam((replay, follow) => {
  replay.play(); // or play(0.5), pause(), seek(tick)
  showKillcam(replay, follow); // each frame: replay.advance(dt); draw replay.sample(id)
});
const clip = client.openReplay(bytes); // any .gwr of this game (e.g. fetched over HTTP)
// #endregion

// #region docs
const recorder = replication.record({ tickRate: 30, keyframeSeconds: 5, keepSeconds: 90 });
// each tick:
world.tick();
recorder.capture(); // right after world.tick()
const file = recorder.save({ seconds: 60 }); // a .gwr file: the last minute

// anywhere (browser-safe), ghostwire/latency:
const replay = ReplayPlayer.open(file, { types, capacity, events }); // ReplayError when refused
replay.play(2); // 2× real time; negative plays backward
replay.advance(frameSeconds); // each frame: moves the clock, applies frames
replay.pause();
replay.seek(replay.startTick + 300);
replay.follow(id);
for (const ghost of replay.mirror.ghosts()) draw(replay.sample(ghost.id)); // interpolated as live
// #endregion

export { clip, onKill, onKillReported };
