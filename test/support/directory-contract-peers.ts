/**
 * The Directory contract's peer sessions (directory-contract.ts): slots handed out lowest first,
 * one winner for the last slot among racing backends, a player keeping its slot, leaving and
 * lapsing, generations that order every take, the per-user cap, the short life of an empty
 * session, and misuse refused.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ContractContext } from './directory-contract.js';

export function peerSessionContract(ctx: ContractContext): void {
  it('peer sessions: slots lowest first, kept by their player, freed on leave, one id once', async () => {
    const { directory, peer } = ctx.subject;
    const ttl = 60_000;
    assert.equal(await directory.createPeerSession('s1', 3, 'host', ttl), 'created');
    assert.equal(await peer.createPeerSession('s1', 2, 'other', ttl), 'taken', 'the id is taken');
    assert.deepEqual(await peer.takePeerSlot('s1', 'ann', ttl), {
      ok: true,
      slot: 1,
      generation: 2,
      players: ['host', 'ann', null],
    });
    assert.deepEqual(await directory.takePeerSlot('s1', 'ann', ttl), {
      ok: true,
      slot: 1,
      generation: 3,
      players: ['host', 'ann', null],
    });
    assert.deepEqual(await directory.takePeerSlot('s1', 'host', ttl), {
      ok: true,
      slot: 0,
      generation: 4,
      players: ['host', 'ann', null],
    });
    assert.deepEqual(await directory.takePeerSlot('s1', 'bob', ttl), {
      ok: true,
      slot: 2,
      generation: 5,
      players: ['host', 'ann', 'bob'],
    });
    assert.deepEqual(await peer.takePeerSlot('s1', 'cid', ttl), { ok: false, reason: 'full' });
    assert.equal(await peer.leavePeerSession('s1', 'ann'), true);
    assert.equal(await peer.leavePeerSession('s1', 'ann'), false);
    assert.equal(await peer.leavePeerSession('nope', 'ann'), false);
    assert.deepEqual(await directory.takePeerSlot('s1', 'cid', ttl), {
      ok: true,
      slot: 1,
      generation: 6,
      players: ['host', 'cid', 'bob'],
    });
    assert.deepEqual(await directory.takePeerSlot('nope', 'cid', ttl), {
      ok: false,
      reason: 'no such session',
    });
  });

  it('peer sessions: racing takes of the last slots leave one holder each', async () => {
    const { directory, peer } = ctx.subject;
    await directory.createPeerSession('race', 4, 'host', 60_000);
    const users = Array.from({ length: 10 }, (_, i) => `u${i}`);
    const results = await Promise.all(
      users.map((u, i) => (i % 2 ? peer : directory).takePeerSlot('race', u, 60_000)),
    );
    const won = results.flatMap((r) => (r.ok ? [r.slot] : []));
    assert.deepEqual(won.sort(), [1, 2, 3]);
    assert.equal(results.filter((r) => !r.ok && r.reason === 'full').length, 7);
  });

  it('peer sessions: a session lapses ttlMs after its last take', async () => {
    const { directory, peer } = ctx.subject;
    assert.equal(await directory.createPeerSession('brief', 2, 'host', ctx.ttlMs), 'created');
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.deepEqual(await peer.takePeerSlot('brief', 'late', ctx.ttlMs), {
      ok: false,
      reason: 'no such session',
    });
    assert.equal(
      await peer.createPeerSession('brief', 2, 'again', ctx.ttlMs),
      'created',
      'its id is free again',
    );
  });

  it('peer sessions: racing takes get distinct generations, each above the ones before', async () => {
    const { directory, peer } = ctx.subject;
    await directory.createPeerSession('gens', 3, 'host', 60_000);
    const results = await Promise.all(
      ['a', 'b', 'a', 'host', 'b', 'a'].map((u, i) =>
        (i % 2 ? peer : directory).takePeerSlot('gens', u, 60_000),
      ),
    );
    const generations = results.map((r) => (r.ok ? r.generation : -1)).sort((x, y) => x - y);
    assert.deepEqual(generations, [2, 3, 4, 5, 6, 7]);
    const later = await peer.takePeerSlot('gens', 'a', 60_000);
    assert.ok(later.ok && later.generation === 8);
  });

  it('peer sessions: a user has at most maxPerUser sessions it made live, until they end', async () => {
    const { directory, peer } = ctx.subject;
    const ttl = 60_000;
    assert.equal(await directory.createPeerSession('cap1', 2, 'greedy', ttl, 2), 'created');
    assert.equal(await peer.createPeerSession('cap2', 2, 'greedy', ttl, 2), 'created');
    assert.equal(await directory.createPeerSession('cap3', 2, 'greedy', ttl, 2), 'limit');
    assert.equal(await peer.createPeerSession('cap3', 2, 'other', ttl, 2), 'created', 'per user');
    // Joining another's session does not count; leaving one of its own makes room once it ends.
    assert.ok((await directory.takePeerSlot('cap3', 'greedy', ttl)).ok);
    assert.equal(await peer.leavePeerSession('cap1', 'greedy', ctx.ttlMs), true);
    assert.equal(await directory.createPeerSession('cap4', 2, 'greedy', ttl, 2), 'limit', 'not ended yet');
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.equal(await directory.createPeerSession('cap4', 2, 'greedy', ttl, 2), 'created');
    assert.equal(await peer.createPeerSession('cap5', 2, 'greedy', ttl, 2), 'limit');
    assert.equal(await peer.createPeerSession('cap5', 2, 'greedy', ttl), 'created', 'unlimited by default');
  });

  it('peer sessions: a session its creator left to another account still counts against the creator', async () => {
    const { directory, peer } = ctx.subject;
    const ttl = 60_000;
    // Alice makes a session, Bob joins it, Alice leaves: Bob keeps it alive, so it is still hers.
    for (const id of ['handed1', 'handed2']) {
      assert.equal(await directory.createPeerSession(id, 2, 'alice', ttl, 2), 'created');
      assert.ok((await peer.takePeerSlot(id, 'bob', ttl)).ok);
      assert.equal(await directory.leavePeerSession(id, 'alice', ctx.ttlMs), true);
    }
    assert.equal(await peer.createPeerSession('handed3', 2, 'alice', ttl, 2), 'limit');
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.deepEqual((await peer.takePeerSlot('handed1', 'bob', ttl)).ok, true, 'alive: Bob holds it');
    assert.equal(await directory.createPeerSession('handed3', 2, 'alice', ttl, 2), 'limit');
    // It ends when its last holder leaves and it lapses; then it makes room.
    assert.equal(await peer.leavePeerSession('handed1', 'bob', ctx.ttlMs), true);
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.equal(await directory.createPeerSession('handed3', 2, 'alice', ttl, 2), 'created');
    // An id that ended and was made again by another is the other's, not Alice's.
    assert.equal(await peer.leavePeerSession('handed2', 'bob', ctx.ttlMs), true);
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.equal(await peer.createPeerSession('handed2', 2, 'bob', ttl, 2), 'created');
    assert.equal(await directory.createPeerSession('handed4', 2, 'alice', ttl, 2), 'created');
    assert.equal(await directory.createPeerSession('handed5', 2, 'alice', ttl, 2), 'limit');
  });

  it('peer sessions: a session its last holder left lapses emptyTtlMs later', async () => {
    const { directory, peer } = ctx.subject;
    const long = 60 * ctx.ttlMs;
    assert.equal(await directory.createPeerSession('left', 2, 'host', long), 'created');
    assert.ok((await peer.takePeerSlot('left', 'ann', long)).ok);
    assert.equal(await peer.leavePeerSession('left', 'host', ctx.ttlMs), true);
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.ok((await peer.takePeerSlot('left', 'host', long)).ok, 'not empty: ann still holds a slot');
    assert.equal(await peer.leavePeerSession('left', 'host', ctx.ttlMs), true);
    assert.equal(await directory.leavePeerSession('left', 'ann', ctx.ttlMs), true);
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.deepEqual(await peer.takePeerSlot('left', 'late', long), { ok: false, reason: 'no such session' });
  });

  it('peer sessions: misuse throws a RangeError', async () => {
    const { directory } = ctx.subject;
    await assert.rejects(directory.createPeerSession('s', 1, 'host', 1000), RangeError);
    await assert.rejects(directory.createPeerSession('s', 65, 'host', 1000), RangeError);
    await assert.rejects(directory.createPeerSession('', 2, 'host', 1000), RangeError);
    await assert.rejects(directory.createPeerSession('s', 2, 'host', 0), RangeError);
    await assert.rejects(directory.takePeerSlot('s', '', 1000), RangeError);
    await assert.rejects(directory.createPeerSession('s', 2, 'host', 1000, 0), RangeError);
    await assert.rejects(directory.createPeerSession('s', 2, 'host', 1000, 1.5), RangeError);
    await assert.rejects(directory.leavePeerSession('s', 'host', 0), RangeError);
  });
}
