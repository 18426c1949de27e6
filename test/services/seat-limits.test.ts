/**
 * Issue 23 item 6, one session squatting every seat of a room: a guest session that never connects
 * reserves seat after seat of a 4-seat room and keeps reserving as they lapse. The per-user seat
 * limits (one per room, three across rooms by default, reserved seats counted) leave it one seat,
 * so other players still get theirs. Over the embedded directory and a real redis-server.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Directory } from '../../src/services/directory.js';
import { EmbeddedDirectory } from '../../src/services/embedded-directory.js';
import { RedisDirectory } from '../../src/services/redis-directory.js';
import { backendPerTest, call, FakeRoomProcess, guest } from '../support/backend-fixture.js';
import { RedisServer, redisSkip } from '../support/redis.js';

let redis: RedisServer | null = null;
let prefixes = 0;
after(async () => {
  await redis?.stop();
});

const subjects: [string, string | false, () => Promise<Directory>][] = [
  ['embedded directory', false, async () => new EmbeddedDirectory()],
  [
    'redis directory',
    redisSkip(),
    async () => {
      redis ??= await RedisServer.start();
      return RedisDirectory.connect({ url: redis.url, keyPrefix: `limits${++prefixes}:` });
    },
  ],
];

for (const [name, skip, make] of subjects)
  describe(`seat limits over the ${name}`, { skip }, () => {
    const start = backendPerTest();

    it('one guest session squatting a 4-seat room gets one seat, and a second player gets one at once', async () => {
      // Seats lapse after a second: the attack is to reserve again as they do.
      const f = await start({ directory: await make(), tokenSeconds: 1 });
      const room = await FakeRoomProcess.start(f.directory, { processId: 'p1', maxClients: 4 });
      const host = await guest(f.url, 'host');
      const created = await call(
        f.url,
        'POST',
        '/rooms/create',
        { name: 'arena', transport: 'udp' },
        host.session,
      );
      assert.equal(created.status, 200);
      const roomId = created.body.roomId as string;
      const mallory = await guest(f.url, 'mallory');
      const join = (session: string) =>
        call(f.url, 'POST', `/rooms/${roomId}/join`, { transport: 'udp' }, session);

      const burst = await Promise.all(Array.from({ length: 6 }, () => join(mallory.session)));
      assert.equal(burst.filter((a) => a.status === 200).length, 1, 'one seat in the room');
      for (const refused of burst.filter((a) => a.status !== 200)) {
        assert.equal(refused.status, 409);
        assert.match(refused.body.error ?? '', /seat\(s\) in this room already/);
      }
      // join-or-create spreads it over other rooms, up to three seats in all, then refuses
      // without asking for more rooms.
      const spread = await Promise.all(
        Array.from({ length: 6 }, () =>
          call(f.url, 'POST', '/rooms/join-or-create', { name: 'arena', transport: 'udp' }, mallory.session),
        ),
      );
      assert.ok(spread.filter((a) => a.status === 200).length <= 2, 'three seats in all');
      assert.ok(room.requests.length <= 3, `rooms asked for: ${room.requests.length}`);

      // Reserving again and again as the seats lapse never holds more than one of the room's.
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        await Promise.all([join(mallory.session), join(mallory.session)]);
        const seats = (await f.directory.getRoom(roomId))?.seats ?? 0;
        assert.ok(seats <= 2, `the room has ${seats} seats held: the host's and one of mallory's at most`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const bob = await guest(f.url, 'bob');
      const carol = await guest(f.url, 'carol');
      assert.equal((await join(bob.session)).status, 200, "bob's first try gets a seat");
      assert.equal((await join(carol.session)).status, 200, "carol's too");
      await room.stop();
    });

    it('takes its limits from the backend options, and refuses bad ones at the call', async () => {
      const f = await start({ directory: await make(), seatLimits: { perRoom: 2 } });
      const room = await FakeRoomProcess.start(f.directory, { processId: 'p1', maxClients: 4 });
      const ann = await guest(f.url, 'ann');
      const created = await call(
        f.url,
        'POST',
        '/rooms/create',
        { name: 'arena', transport: 'udp' },
        ann.session,
      );
      const roomId = created.body.roomId as string;
      const again = await call(f.url, 'POST', `/rooms/${roomId}/join`, { transport: 'udp' }, ann.session);
      assert.equal(again.status, 200, 'two seats per room allowed');
      const third = await call(f.url, 'POST', `/rooms/${roomId}/join`, { transport: 'udp' }, ann.session);
      assert.equal(third.status, 409);
      await room.stop();
      for (const seatLimits of [{ perRoom: 0 }, { perUser: Number.NaN }, { perUser: 1.5 }])
        await assert.rejects(start({ seatLimits }), RangeError);
    });
  });
