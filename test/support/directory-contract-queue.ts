/**
 * The second half of the Directory contract (directory-contract.ts): the matchmaking queue —
 * claims all-or-nothing, one winner among racing claims, results that lapse — and
 * publish/subscribe: delivery across processes, several handlers, unsubscribing.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Ticket } from '../../src/services/directory.js';
import { type ContractContext, until } from './directory-contract.js';

function ticket(ticketId: string, pool = 'duel/eu', skill = 1500): Ticket {
  return {
    ticketId,
    userIds: [`user-${ticketId}`, `friend-${ticketId}`],
    pool,
    skill,
    properties: { wantsVoice: true, region: 'eu', level: 12 },
    createdAt: 1_700_000_000_000,
  };
}

export function queueContract(ctx: ContractContext): void {
  it('queues tickets by pool, refuses a taken id and cancels once', async () => {
    const { directory, peer } = ctx.subject;
    await directory.addTicket(ticket('t1'));
    await peer.addTicket(ticket('t2', 'duel/us'));
    await directory.addTicket(ticket('t3'));
    await assert.rejects(peer.addTicket(ticket('t1')), /exists/);
    const ids = (tickets: Ticket[]) => tickets.map((t) => t.ticketId).sort();
    assert.deepEqual(ids(await peer.listTickets()), ['t1', 't2', 't3']);
    assert.deepEqual(ids(await peer.listTickets('duel/eu')), ['t1', 't3']);
    assert.deepEqual(await peer.listTickets('nobody'), []);
    assert.deepEqual(await peer.ticketStatus('t1'), { state: 'queued', ticket: ticket('t1') });
    assert.deepEqual(await peer.ticketStatus('t9'), { state: 'unknown' });
    assert.equal(await peer.cancelTicket('t1'), true);
    assert.equal(await directory.cancelTicket('t1'), false);
    assert.equal(await directory.cancelTicket('t9'), false);
    assert.deepEqual(await directory.ticketStatus('t1'), {
      state: 'cancelled',
      userIds: ['user-t1', 'friend-t1'],
    });
    assert.deepEqual(ids(await directory.listTickets('duel/eu')), ['t3']);
    await assert.rejects(peer.addTicket(ticket('t1')), /exists/, 'its cancellation is still readable');
  });

  it('claims tickets all or nothing and keeps the match readable for a while', async () => {
    const { directory, peer, elapse } = ctx.subject;
    for (const id of ['t1', 't2', 't3']) await directory.addTicket(ticket(id));
    const match = { matchId: 'm1', roomId: 'r1' };
    assert.equal(await peer.claimTickets(['t1', 't9'], match, ctx.ttlMs), false, 't9 is not queued');
    assert.equal(await peer.claimTickets(['t1', 't1'], match, ctx.ttlMs), false, 'a ticket named twice');
    assert.equal((await directory.listTickets()).length, 3, 'a refused claim takes none');
    assert.equal(await peer.claimTickets(['t1', 't2'], match, ctx.ttlMs), true);
    assert.deepEqual(
      (await directory.listTickets()).map((t) => t.ticketId),
      ['t3'],
    );
    const status = await directory.ticketStatus('t2');
    assert.equal(status.state, 'matched');
    assert.ok(status.state === 'matched');
    assert.deepEqual(
      { ...status, matchedAt: 0 },
      {
        state: 'matched',
        ...match,
        ticketIds: ['t1', 't2'],
        userIds: ['user-t1', 'friend-t1', 'user-t2', 'friend-t2'],
        matchedAt: 0,
      },
    );
    assert.ok(status.matchedAt > 0);
    assert.equal(await directory.cancelTicket('t1'), false, 'a matched ticket is no longer queued');
    assert.equal(await directory.claimTickets(['t2', 't3'], match, ctx.ttlMs), false);
    await elapse(ctx.ttlMs * 1.5);
    assert.deepEqual(await directory.ticketStatus('t1'), { state: 'unknown' });
    await directory.addTicket(ticket('t1'));
    assert.equal(
      (await directory.ticketStatus('t1')).state,
      'queued',
      'the id is free once its result lapsed',
    );
    await assert.rejects(directory.claimTickets(['t3'], match, 0), RangeError);
  });

  it('lets one of two racing claims over the same tickets win', async () => {
    const { directory, peer } = ctx.subject;
    for (let round = 0; round < 5; round++) {
      const a = [`a${round}`, `b${round}`];
      const b = [`b${round}`, `c${round}`];
      for (const id of [...a, `c${round}`]) await directory.addTicket(ticket(id));
      const [first, second] = await Promise.all([
        directory.claimTickets(a, { matchId: `ma${round}`, roomId: 'r1' }, 10_000),
        peer.claimTickets(b, { matchId: `mb${round}`, roomId: 'r2' }, 10_000),
      ]);
      assert.equal(Number(first) + Number(second), 1, `round ${round}: exactly one claim wins`);
      const loser = first ? `c${round}` : `a${round}`;
      assert.equal((await directory.ticketStatus(loser)).state, 'queued', 'the losing claim took nothing');
    }
  });

  it('delivers messages to every handler live at publishing, across processes', async () => {
    const { directory, peer } = ctx.subject;
    const got: string[] = [];
    const unsubscribeA = await peer.subscribe('chat', (m) => got.push(`a:${m}`));
    const unsubscribeB = await peer.subscribe('chat', (m) => got.push(`b:${m}`));
    const twice = (m: string) => got.push(`c:${m}`);
    const unsubscribeC1 = await directory.subscribe('chat', twice);
    const unsubscribeC2 = await directory.subscribe('chat', twice);
    // A mark published after a message arrives after it on each connection (one per directory).
    const marks: string[] = [];
    await directory.subscribe('marks', (m) => marks.push(m));
    if (peer !== directory) await peer.subscribe('marks', (m) => marks.push(m));
    const markers = peer === directory ? 1 : 2;
    await peer.subscribe('other', (m) => got.push(`other:${m}`));
    await directory.publish('chat', 'one');
    await until(() => got.length === 4, 'four deliveries of one');
    assert.deepEqual([...got].sort(), ['a:one', 'b:one', 'c:one', 'c:one']);
    got.length = 0;
    await unsubscribeA();
    await unsubscribeA();
    await unsubscribeC1();
    await peer.publish('chat', 'two');
    await until(() => got.length === 2, 'two deliveries of two');
    // The channel stays subscribed while one local handler is left, and goes when the last leaves.
    await unsubscribeB();
    await unsubscribeC2();
    await peer.publish('chat', 'three');
    await peer.publish('marks', 'after three');
    await until(() => marks.length === markers, 'the marks after three');
    assert.deepEqual([...got].sort(), ['b:two', 'c:two']);
    const again: string[] = [];
    await peer.subscribe('chat', (m) => again.push(m));
    await directory.publish('chat', 'four');
    await until(() => again.length === 1, 'four, after subscribing again');
    assert.deepEqual(again, ['four']);
  });
}
