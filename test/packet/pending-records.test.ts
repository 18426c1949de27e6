import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingRecords } from '../../src/packet/pending-records.js';

test('PendingRecords: hands back each record once, by sequence, and stays small while few are pending', () => {
  const records = new PendingRecords<string>();
  const pending = new Set<number>();
  const isPending = (s: number) => pending.has(s);
  // One or two packets in flight at a time, across the 16-bit wrap.
  for (let n = 0; n < 70000; n++) {
    const s = n & 0xffff;
    pending.add(s);
    records.put(s, `r${s}`, isPending);
    const acked = (s - 1) & 0xffff;
    if (n > 0) {
      assert.equal(records.take(acked), `r${acked}`);
      pending.delete(acked);
      assert.equal(records.take(acked), undefined);
    }
  }
  assert.equal(records.capacity, 8);
});

test('PendingRecords: grows when pending records share a slot, keeping all of them', () => {
  const records = new PendingRecords<number>();
  const pending = new Set<number>();
  const isPending = (s: number) => pending.has(s);
  const sequences = [65530, 2, 10, 18, 26, 34, 290, 546];
  for (const s of sequences) {
    pending.add(s);
    records.put(s, s * 3, isPending);
  }
  assert.ok(records.capacity >= 512, `capacity ${records.capacity}`);
  for (const s of sequences) assert.equal(records.take(s), s * 3);
});

test('PendingRecords: a stale record (its packet no longer pending) gives up its slot without growth', () => {
  const records = new PendingRecords<string>();
  const pending = new Set<number>([3]);
  records.put(3, 'old', (s) => pending.has(s));
  pending.delete(3); // left the sent buffer unreported
  pending.add(11);
  records.put(11, 'new', (s) => pending.has(s));
  assert.equal(records.capacity, 8);
  assert.equal(records.take(3), undefined);
  assert.equal(records.take(11), 'new');
  records.put(5, 'x', () => true);
  records.clear();
  assert.equal(records.take(5), undefined);
});
