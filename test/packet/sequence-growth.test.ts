/**
 * The buffers that grow with traffic answer exactly as the full rings they replace: random
 * inserts (in order, reordered, late, after jumps of any size, across wraps), removes and advances
 * on a GrowingSequenceBuffer and a SequenceBits, checked after every step against a SequenceBuffer
 * of the same size (which holds every slot from the start). Also: they grow only with what is live,
 * and netcode's replay protection, kept as bits, answers as the standard's 256 slots.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RingQueue } from '../../src/channels/ring-queue.js';
import { ReplayProtection } from '../../src/connection/replay-protection.js';
import { GrowingSequenceBuffer } from '../../src/packet/growing-sequence-buffer.js';
import { SequenceBits } from '../../src/packet/sequence-bits.js';
import { SequenceBuffer } from '../../src/packet/sequence-buffer.js';
import { prng, randomInt } from '../../src/random/prng.js';
import { testSeed } from '../support/seed.js';

const SEED = testSeed('sequence growth tests');

/** A sequence near `newest`: mostly just ahead, sometimes behind (reordered or stale), sometimes far off. */
function nextSequence(random: () => number, newest: number, size: number): number {
  const r = random();
  if (r < 0.6) return (newest + 1 + randomInt(random, 3)) & 0xffff;
  if (r < 0.85) return (newest - randomInt(random, size + 8)) & 0xffff;
  if (r < 0.95) return (newest + randomInt(random, 2 * size + 2)) & 0xffff;
  return randomInt(random, 65536);
}

/** The sequences behind the newest that are checked: the newest 200 and the 200 at the window's edge. */
function nextBack(back: number, size: number): number {
  return back === 200 && size > 400 ? size - 200 : back + 1;
}

describe(`growing sequence buffers match full rings (seed ${SEED})`, () => {
  // Sizes that divide the sequence space: a full ring of another size treats sequences either side
  // of the wrap inconsistently (two in its window can share a slot), where the growing one, below
  // its full size, keeps the window exactly.
  for (const size of [1, 2, 16, 32, 256, 512, 2048]) {
    it(`GrowingSequenceBuffer of ${size}`, () => {
      const random = prng(SEED ^ size);
      const model = new SequenceBuffer(size, () => ({ value: -1 }));
      const growing = new GrowingSequenceBuffer(size, () => ({ value: -1 }));
      let newest = 0;
      for (let step = 0; step < 10000; step++) {
        const s = nextSequence(random, newest, size);
        const op = random();
        if (op < 0.7) {
          const a = model.insert(s);
          const b = growing.insert(s);
          assert.equal(b !== undefined, a !== undefined, `step ${step}: insert ${s}`);
          if (a !== undefined && b !== undefined) a.value = b.value = step;
        } else if (op < 0.85) {
          // Removing what is held (as every caller does; a full ring would also empty a slot that
          // holds another sequence, which no caller relies on).
          if (model.exists(s)) {
            model.remove(s);
            growing.remove(s);
          }
        } else {
          model.advance(s);
          growing.advance(s);
        }
        newest = (model.sequence - 1) & 0xffff;
        assert.equal(growing.sequence, model.sequence, `step ${step}: newest`);
        for (let back = -2; back < size + 2; back = nextBack(back, size)) {
          const q = (newest - back) & 0xffff;
          assert.equal(growing.exists(q), model.exists(q), `step ${step}: exists ${q} (newest ${newest})`);
          assert.equal(growing.find(q)?.value, model.find(q)?.value, `step ${step}: entry of ${q}`);
        }
        assert.ok(growing.capacity <= size);
      }
    });
  }

  for (const size of [32, 64, 512, 4096]) {
    it(`SequenceBits of ${size}`, () => {
      const random = prng(SEED ^ (size * 7));
      const model = new SequenceBuffer(size, () => ({}));
      const bits = new SequenceBits(size);
      let newest = 0;
      for (let step = 0; step < 10000; step++) {
        const s = nextSequence(random, newest, size);
        if (random() < 0.8)
          assert.equal(bits.insert(s), model.insert(s) !== undefined, `step ${step}: insert ${s}`);
        else {
          bits.advance(s);
          model.advance(s);
        }
        newest = (model.sequence - 1) & 0xffff;
        assert.equal(bits.sequence, model.sequence);
        for (let back = -2; back < size + 2; back = nextBack(back, size)) {
          const q = (newest - back) & 0xffff;
          assert.equal(bits.exists(q), model.exists(q), `step ${step}: exists ${q} (newest ${newest})`);
        }
        // Ack bits: of the newest (read as a word) and of any sequence (tested one by one).
        for (const ack of [newest, randomInt(random, 65536)]) {
          let expected = 0;
          for (let i = 0; i < 32; i++) if (model.exists((ack - i) & 0xffff)) expected |= 1 << i;
          assert.equal(bits.ackBits(ack), expected >>> 0, `step ${step}: ack bits of ${ack}`);
        }
      }
    });
  }

  it('grows only to what is live: a queue that never holds more than 5 at once stays at 16 slots', () => {
    const queue = new GrowingSequenceBuffer(1024, () => ({}));
    assert.equal(queue.find(0), undefined, 'an unused queue finds nothing');
    for (let id = 0; id < 70000; id++) {
      queue.insert(id & 0xffff);
      if (id >= 4) queue.remove((id - 4) & 0xffff);
    }
    assert.equal(queue.capacity, 16);
    // 600 live at once: the next power of two.
    for (let id = 0; id < 600; id++) queue.insert((10000 + id) & 0xffff);
    assert.equal(queue.capacity, 1024);
    for (let id = 0; id < 600; id++) assert.ok(queue.exists(10000 + id));
  });

  it('RingQueue doubles up to its capacity and keeps FIFO order across growth', () => {
    const queue = new RingQueue<number>(100);
    let pushed = 0;
    let shifted = 0;
    const random = prng(SEED ^ 0x5eed);
    for (let step = 0; step < 5000; step++) {
      if (queue.length < queue.capacity && random() < 0.55) queue.push(pushed++);
      else if (queue.length > 0) assert.equal(queue.shift(), shifted++);
      for (let k = 0; k < queue.length; k++) assert.equal(queue.at(k), shifted + k);
    }
    assert.equal(queue.shift() ?? shifted, shifted);
  });
});

/** netcode's replay protection as the standard writes it: 256 slots of sequences. */
class StandardReplay {
  private mostRecent = 0;
  private readonly received = new Array<number>(256).fill(-1);

  alreadyReceived(sequence: number): boolean {
    if (!(sequence < 2 ** 53)) return true;
    if (sequence + 256 <= this.mostRecent) return true;
    const held = this.received[sequence % 256];
    return held !== -1 && held >= sequence;
  }

  advance(sequence: number): void {
    if (sequence > this.mostRecent) this.mostRecent = sequence;
    this.received[sequence % 256] = sequence;
  }
}

describe(`replay protection bits match the standard's slots (seed ${SEED})`, () => {
  it('random sequences: new, repeated, reordered, late, far ahead, past 2^32', () => {
    const random = prng(SEED ^ 0x2e91a7);
    for (const start of [0, 2 ** 32 - 300, 2 ** 52]) {
      const model = new StandardReplay();
      const bits = new ReplayProtection();
      let newest = start;
      for (let step = 0; step < 20000; step++) {
        const r = random();
        const sequence =
          r < 0.5
            ? newest + randomInt(random, 4)
            : r < 0.9
              ? Math.max(0, newest - randomInt(random, 300))
              : newest + randomInt(random, 600);
        const seen = model.alreadyReceived(sequence);
        assert.equal(bits.alreadyReceived(sequence), seen, `start ${start}, step ${step}: ${sequence}`);
        // Only packets that pass the check (and authenticate) are recorded.
        if (!seen) {
          model.advance(sequence);
          bits.advance(sequence);
          newest = Math.max(newest, sequence);
        }
      }
    }
  });
});
