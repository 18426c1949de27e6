/**
 * A fragment about half the sequence space ahead (docs/packet.md, "Where it differs from
 * reliable.c"): refused, where the reference accepts it and then drops the peer's genuine packets
 * as stale for ~32k sequences. Pins the documented bounds at the default reassembly buffer (64).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReliableEndpoint } from '../../src/packet/index.js';

/** 100 packets received, then fragment 1 of a packet `ahead` sequences past them, then 100 more. */
function afterFarFragment(ahead: number) {
  const out: Uint8Array[] = [];
  let processed = 0;
  const sender = new ReliableEndpoint({
    transmit: (_s, data, length) => out.push(data.slice(0, length)),
    process: () => true,
  });
  const receiver = new ReliableEndpoint({ transmit: () => {}, process: () => ++processed > 0 });
  const small = new Uint8Array(10);
  for (let i = 0; i < 100; i++) sender.sendPacket(small, small.length);
  for (const p of out.splice(0)) receiver.receivePacket(p);
  sender.sendPacket(new Uint8Array(3000), 3000);
  // Fragment 1 carries no embedded packet header: its sequence is only the two bytes after the prefix.
  const fragment = out.splice(0)[1];
  const sequence = (100 + ahead) & 0xffff;
  fragment[1] = sequence & 0xff;
  fragment[2] = sequence >>> 8;
  receiver.receivePacket(fragment);
  const before = processed;
  for (let i = 0; i < 100; i++) sender.sendPacket(small, small.length);
  for (const p of out.splice(0)) receiver.receivePacket(p);
  return { refused: receiver.counters.fragmentsInvalid === 1, genuineAfter: processed - before };
}

describe('a fragment far ahead of the newest sequence', () => {
  it('from 32769 - fragmentReassemblyBufferSize to 32768 ahead it is refused and genuine packets keep arriving', () => {
    for (const ahead of [32705, 32740, 32768]) {
      assert.deepEqual(afterFarFragment(ahead), { refused: true, genuineAfter: 100 }, `${ahead} ahead`);
    }
  });

  it('closer ahead it is accepted and the sequences it skips go stale, as in the reference', () => {
    assert.deepEqual(afterFarFragment(32704), { refused: false, genuineAfter: 0 });
    assert.deepEqual(afterFarFragment(50), { refused: false, genuineAfter: 100 });
  });
});
