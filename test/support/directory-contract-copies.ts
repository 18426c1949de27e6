/**
 * Part of the Directory contract (directory-contract.ts): what a caller holds is its own. Changing
 * a value a directory returned, or one it was given, changes nothing stored: the next read is as
 * before. (A shared entry would let one caller's edit leak into every other's view.)
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Ticket } from '../../src/services/directory.js';
import { type ContractContext, processRecord, roomListing, seatRequest } from './directory-contract.js';

export function copiesContract(ctx: ContractContext): void {
  it('keeps what it stores apart from what callers give and get', async () => {
    const { directory, peer } = ctx.subject;
    const record = processRecord('p1');
    await directory.registerProcess(record, 60_000);
    record.addresses.udp = 'changed';
    record.load.clients = 99;
    const listing = roomListing('r1', 'p1');
    await directory.createRoom(listing);
    listing.metadata.map = 'changed';
    await directory.updateRoom('r1', { metadata: { map: 'inferno' } });
    const reserved = await directory.reserveSeat('r1', seatRequest('s1', 60_000));
    assert.ok(reserved.ok);
    reserved.seat.state = 'taken';
    const ticket: Ticket = {
      ticketId: 't1',
      userIds: ['u1', 'u2'],
      pool: 'duel/eu',
      skill: 1500,
      properties: { region: 'eu' },
      createdAt: 1,
    };
    await directory.addTicket(ticket);
    ticket.userIds.push('intruder');
    ticket.properties.region = 'changed';
    await directory.addTicket({ ...ticket, ticketId: 't2', userIds: ['u3'], properties: {} });
    assert.equal(await directory.claimTickets(['t2'], { matchId: 'm1', roomId: 'r1' }, 60_000), true);

    const reads = async () => ({
      process: await peer.getProcess('p1'),
      processes: await peer.listProcesses(),
      room: await peer.getRoom('r1'),
      rooms: await peer.findRooms({}),
      seat: await peer.getSeat('s1'),
      tickets: await peer.listTickets(),
      queued: await peer.ticketStatus('t1'),
      matched: await peer.ticketStatus('t2'),
    });
    const first = await reads();
    assert.equal(first.process?.addresses.udp, '127.0.0.1:40000');
    assert.equal(first.process?.load.clients, 0);
    assert.deepEqual(first.room?.metadata, { map: 'inferno' });
    assert.equal(first.seat?.state, 'reserved');
    assert.deepEqual(first.tickets[0].userIds, ['u1', 'u2']);
    assert.deepEqual(first.tickets[0].properties, { region: 'eu' });
    const expected = structuredClone(first);

    // Every nested part of every answer, changed in place.
    for (const p of [first.process, ...first.processes]) {
      if (p === null) continue;
      p.addresses.udp = 'x';
      p.load.clients = 99;
      p.state = 'draining';
    }
    for (const room of [first.room, ...first.rooms]) {
      if (room === null) continue;
      room.metadata.map = 'x';
      room.maxClients = 99;
    }
    if (first.seat !== null) first.seat.state = 'taken';
    for (const t of first.tickets) {
      t.userIds.push('x');
      t.properties.region = 'x';
      t.skill = 0;
    }
    if (first.queued.state === 'queued') first.queued.ticket.userIds.length = 0;
    if (first.matched.state === 'matched') first.matched.ticketIds.push('x');

    assert.deepEqual(await reads(), expected);
  });
}
