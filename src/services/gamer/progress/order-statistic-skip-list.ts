/**
 * A sorted set of strings (byte order, as Redis orders a sorted set's equal-score members) with
 * O(log n) insert, delete, rank of any string, and the string at a rank: a skip list whose links
 * carry their span (how many elements each one jumps), as Redis's own sorted sets do. The
 * in-memory rank index of the embedded store is built on it.
 */

const MAX_LEVEL = 32;
const P = 0.25;

class SkipNode {
  readonly next: (SkipNode | null)[];
  readonly span: number[];
  constructor(
    readonly key: string,
    level: number,
  ) {
    this.next = new Array(level).fill(null);
    this.span = new Array(level).fill(0);
  }
}

export class OrderStatisticSkipList {
  private readonly head = new SkipNode('', MAX_LEVEL);
  private level = 1;
  private count = 0;
  private readonly update: SkipNode[] = new Array(MAX_LEVEL);
  private readonly rank: number[] = new Array(MAX_LEVEL).fill(0);

  constructor(private readonly random: () => number = Math.random) {}

  get size(): number {
    return this.count;
  }

  /** Adds `key`; false when it was already there. */
  insert(key: string): boolean {
    let x = this.head;
    for (let i = this.level - 1; i >= 0; i--) {
      this.rank[i] = i === this.level - 1 ? 0 : this.rank[i + 1];
      let next = x.next[i];
      while (next !== null && next.key < key) {
        this.rank[i] += x.span[i];
        x = next;
        next = x.next[i];
      }
      this.update[i] = x;
    }
    const found = x.next[0];
    if (found !== null && found.key === key) return false;
    let level = 1;
    while (level < MAX_LEVEL && this.random() < P) level++;
    if (level > this.level) {
      for (let i = this.level; i < level; i++) {
        this.rank[i] = 0;
        this.update[i] = this.head;
        this.head.span[i] = this.count;
      }
      this.level = level;
    }
    const node = new SkipNode(key, level);
    for (let i = 0; i < level; i++) {
      const before = this.update[i];
      node.next[i] = before.next[i];
      before.next[i] = node;
      node.span[i] = before.span[i] - (this.rank[0] - this.rank[i]);
      before.span[i] = this.rank[0] - this.rank[i] + 1;
    }
    for (let i = level; i < this.level; i++) this.update[i].span[i]++;
    this.count++;
    return true;
  }

  /** Removes `key`; false when it was not there. */
  delete(key: string): boolean {
    let x = this.head;
    for (let i = this.level - 1; i >= 0; i--) {
      let next = x.next[i];
      while (next !== null && next.key < key) {
        x = next;
        next = x.next[i];
      }
      this.update[i] = x;
    }
    const node = x.next[0];
    if (node === null || node.key !== key) return false;
    for (let i = 0; i < this.level; i++) {
      const before = this.update[i];
      if (before.next[i] === node) {
        before.span[i] += node.span[i] - 1;
        before.next[i] = node.next[i];
      } else before.span[i]--;
    }
    while (this.level > 1 && this.head.next[this.level - 1] === null) this.level--;
    this.count--;
    return true;
  }

  /** How many keys sort before `key` (its 0-based rank when present), `key` counted too with `orEqual`. */
  countBefore(key: string, orEqual = false): number {
    let x = this.head;
    let passed = 0;
    for (let i = this.level - 1; i >= 0; i--) {
      let next = x.next[i];
      while (next !== null && (next.key < key || (orEqual && next.key === key))) {
        passed += x.span[i];
        x = next;
        next = x.next[i];
      }
    }
    return passed;
  }

  has(key: string): boolean {
    const before = this.countBefore(key);
    return before < this.count && this.at(before) === key;
  }

  /** The key at 0-based `rank`, or null past the end. */
  at(rank: number): string | null {
    return this.range(rank, 1)[0] ?? null;
  }

  /** Up to `count` keys from 0-based rank `start` on. */
  range(start: number, count: number): string[] {
    const out: string[] = [];
    if (start < 0 || start >= this.count || count <= 0) return out;
    let x = this.head;
    let traversed = 0;
    const target = start + 1; // 1-based position of the first key wanted
    for (let i = this.level - 1; i >= 0; i--) {
      while (x.next[i] !== null && traversed + x.span[i] <= target) {
        traversed += x.span[i];
        x = x.next[i] as SkipNode;
      }
      if (traversed === target) break;
    }
    let node: SkipNode | null = x;
    while (node !== null && out.length < count) {
      out.push(node.key);
      node = node.next[0];
    }
    return out;
  }

  clear(): void {
    this.head.next.fill(null);
    this.head.span.fill(0);
    this.level = 1;
    this.count = 0;
  }
}
