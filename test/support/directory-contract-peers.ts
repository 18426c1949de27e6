/**
 * The Directory contract's peer sessions (directory-contract.ts): slots handed out lowest first,
 * one winner for the last slot among racing backends, a player keeping its slot, leaving and
 * lapsing, and misuse refused.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ContractContext } from './directory-contract.js';

export function peerSessionContract(ctx: ContractContext): void {
  it('peer sessions: slots lowest first, kept by their player, freed on leave, one id once', async () => {
    const { directory, peer } = ctx.subject;
    const ttl = 60_000;
    assert.equal(await directory.createPeerSession('s1', 3, 'host', ttl), true);
    assert.equal(await peer.createPeerSession('s1', 2, 'other', ttl), false, 'the id is taken');
    assert.deepEqual(await peer.takePeerSlot('s1', 'ann', ttl), {
      ok: true,
      slot: 1,
      players: ['host', 'ann', null],
    });
    assert.deepEqual(await directory.takePeerSlot('s1', 'ann', ttl), {
      ok: true,
      slot: 1,
      players: ['host', 'ann', null],
    });
    assert.deepEqual(await directory.takePeerSlot('s1', 'host', ttl), {
      ok: true,
      slot: 0,
      players: ['host', 'ann', null],
    });
    assert.deepEqual(await directory.takePeerSlot('s1', 'bob', ttl), {
      ok: true,
      slot: 2,
      players: ['host', 'ann', 'bob'],
    });
    assert.deepEqual(await peer.takePeerSlot('s1', 'cid', ttl), { ok: false, reason: 'full' });
    assert.equal(await peer.leavePeerSession('s1', 'ann'), true);
    assert.equal(await peer.leavePeerSession('s1', 'ann'), false);
    assert.equal(await peer.leavePeerSession('nope', 'ann'), false);
    assert.deepEqual(await directory.takePeerSlot('s1', 'cid', ttl), {
      ok: true,
      slot: 1,
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
    assert.equal(await directory.createPeerSession('brief', 2, 'host', ctx.ttlMs), true);
    await ctx.subject.elapse(ctx.ttlMs + 50);
    assert.deepEqual(await peer.takePeerSlot('brief', 'late', ctx.ttlMs), {
      ok: false,
      reason: 'no such session',
    });
    assert.equal(await peer.createPeerSession('brief', 2, 'again', ctx.ttlMs), true, 'its id is free again');
  });

  it('peer sessions: misuse throws a RangeError', async () => {
    const { directory } = ctx.subject;
    await assert.rejects(directory.createPeerSession('s', 1, 'host', 1000), RangeError);
    await assert.rejects(directory.createPeerSession('s', 65, 'host', 1000), RangeError);
    await assert.rejects(directory.createPeerSession('', 2, 'host', 1000), RangeError);
    await assert.rejects(directory.createPeerSession('s', 2, 'host', 0), RangeError);
    await assert.rejects(directory.takePeerSlot('s', '', 1000), RangeError);
  });
}
