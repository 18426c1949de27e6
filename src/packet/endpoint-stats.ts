/**
 * The statistics a ReliableEndpoint exposes as its own public fields. The functions here write
 * them in place (the endpoint passes itself), so a refresh allocates nothing and the figures stay
 * plain fields of the endpoint.
 */
export interface ReliableStats {
  rttMinMs: number;
  rttMaxMs: number;
  rttAvgMs: number;
  jitterAvgVsMinRttMs: number;
  jitterMaxVsMinRttMs: number;
  jitterStddevVsAvgRttMs: number;
  packetLoss: number;
  sentKbps: number;
  receivedKbps: number;
  ackedKbps: number;
}

/** The smoothing factors the window statistics use (a ReliableConfig has both). */
export interface StatsSmoothing {
  readonly packetLossSmoothingFactor: number;
  readonly bandwidthSmoothingFactor: number;
}

/**
 * Loss and bandwidth are averaged over the older half of the newest 256 sequences (the reference's
 * default buffer), however large the buffers: buffers sized for long round trips (2048 under
 * channels) would otherwise average over half a minute of traffic from up to half a minute ago.
 */
export const STATS_WINDOW = 256;

/** Blocks of the RTT window: its figures cover the newest (BLOCKS - 1) / BLOCKS to all of its samples. */
const RTT_BLOCKS = 8;
/** Per RTT block: samples, min, max, sum, sum of squares. */
const RTT_STRIDE = 5;
/** Numbers an RttWindow keeps in the array it is given. */
export const RTT_WINDOW_NUMBERS = RTT_BLOCKS * RTT_STRIDE;

/**
 * Min / max / average RTT and jitter over the newest `rttHistorySize` samples, kept as running
 * tallies of 8 blocks of samples instead of the samples themselves (320 bytes instead of 2 KB at
 * the default 512): a new sample goes to the newest block, and a full block's successor replaces
 * the oldest. So the window is the newest 7/8 to all of `rttHistorySize` samples, in blocks.
 * The tallies live in a part of an array the endpoint shares among its statistics (a typed array,
 * or a view of one, costs ~100-200 bytes besides its numbers).
 */
export class RttWindow {
  /** Whether a sample arrived since the figures were last written. */
  changed = false;
  private readonly perBlock: number;
  private readonly start: number;
  private readonly end: number;
  private current: number;

  /** Keeps its tallies in `tally[offset, offset + RTT_WINDOW_NUMBERS)`. */
  constructor(
    size: number,
    private readonly tally: Float64Array,
    offset: number,
  ) {
    const blocks = Math.min(RTT_BLOCKS, size);
    this.perBlock = Math.floor(size / blocks);
    this.start = offset;
    this.end = offset + blocks * RTT_STRIDE;
    this.current = offset;
  }

  add(rtt: number): void {
    const t = this.tally;
    let b = this.current;
    if (t[b] >= this.perBlock) {
      b = b + RTT_STRIDE === this.end ? this.start : b + RTT_STRIDE;
      this.current = b;
      t[b] = 0;
    }
    if (t[b] === 0) {
      t[b + 1] = rtt;
      t[b + 2] = rtt;
      t[b + 3] = 0;
      t[b + 4] = 0;
    } else {
      if (rtt < t[b + 1]) t[b + 1] = rtt;
      if (rtt > t[b + 2]) t[b + 2] = rtt;
    }
    t[b]++;
    t[b + 3] += rtt;
    t[b + 4] += rtt * rtt;
    this.changed = true;
  }

  reset(): void {
    this.tally.fill(0, this.start, this.end);
    this.current = this.start;
    this.changed = true;
  }

  /**
   * Writes the figures: the jitters follow from the tallies, as the mean and largest distance from
   * the minimum (average − min, max − min) and the standard deviation about the average.
   */
  write(out: ReliableStats): void {
    this.changed = false;
    const t = this.tally;
    let count = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    let sum = 0;
    let squares = 0;
    for (let b = this.start; b < this.end; b += RTT_STRIDE) {
      if (t[b] === 0) continue;
      count += t[b];
      if (t[b + 1] < min) min = t[b + 1];
      if (t[b + 2] > max) max = t[b + 2];
      sum += t[b + 3];
      squares += t[b + 4];
    }
    if (count === 0) {
      out.rttMinMs = out.rttMaxMs = out.rttAvgMs = 0;
      out.jitterAvgVsMinRttMs = out.jitterMaxVsMinRttMs = out.jitterStddevVsAvgRttMs = 0;
      return;
    }
    const avg = sum / count;
    out.rttMinMs = min;
    out.rttMaxMs = max;
    out.rttAvgMs = avg;
    out.jitterAvgVsMinRttMs = Math.max(0, avg - min);
    out.jitterMaxVsMinRttMs = max - min;
    out.jitterStddevVsAvgRttMs = Math.sqrt(Math.max(0, squares / count - avg * avg));
  }
}

/** Buckets of a traffic window (a ring by bucket number): the averaged half and the newer half. */
const BUCKETS = 8;
/** Per bucket: its number (-1: empty), bytes, first and last time; sent windows also packets, packets acked, bytes acked. */
const TAG = 0;
const BYTES = 1;
const START = 2;
const FINISH = 3;
const PACKETS = 4;
const ACKED = 5;
const ACKED_BYTES = 6;
const RECEIVED_STRIDE = 4;
const SENT_STRIDE = 7;
/** Numbers a TrafficWindow keeps in the array it is given: of sent packets (with acks), of received ones. */
export const SENT_WINDOW_NUMBERS = BUCKETS * SENT_STRIDE;
export const RECEIVED_WINDOW_NUMBERS = BUCKETS * RECEIVED_STRIDE;

/**
 * Packets by sequence over the statistics window, as tallies of 8 buckets of consecutive sequences
 * (a power of two, at least an eighth of the window: 32 at the default 256) instead of an entry per
 * packet (448 or 256 bytes instead of 3–4 KB). The figures are taken over the older half of the
 * window: the whole buckets that lie in it, so over the same number of sequences (128 by default),
 * between 97 and 255 sequences behind the newest. A packet is counted in its bucket when sent (or
 * received) and acked there; an ack or packet for a bucket already replaced by a newer one is not
 * counted.
 */
export class TrafficWindow {
  private readonly shift: number;
  /** Buckets averaged: the older half of the window. */
  private readonly half: number;
  /** Bucket numbers wrap with the sequence: 65536 >> shift of them. */
  private readonly tagMask: number;
  private readonly stride: number;
  private readonly offset: number;
  /** The newest bucket number (-1: none yet). */
  private newest = -1;

  /**
   * Keeps its tallies in `tally[offset, offset + SENT_WINDOW_NUMBERS)` when it counts `acks` (sent
   * packets), else in `tally[offset, offset + RECEIVED_WINDOW_NUMBERS)`.
   */
  constructor(
    size: number,
    private readonly tally: Float64Array,
    offset: number,
    acks: boolean,
  ) {
    this.stride = acks ? SENT_STRIDE : RECEIVED_STRIDE;
    this.offset = offset;
    const window = Math.min(size, STATS_WINDOW);
    // Buckets of at least window / 8, so the newer and the older half fit the 8 together.
    let shift = 0;
    while (1 << shift < window / 8) shift++;
    this.shift = shift;
    this.half = Math.max(1, Math.floor(window / (2 << shift)));
    this.tagMask = (0x10000 >>> shift) - 1;
    this.reset();
  }

  reset(): void {
    this.tally.fill(0, this.offset, this.offset + BUCKETS * this.stride);
    for (let i = 0; i < BUCKETS; i++) this.tally[this.offset + i * this.stride + TAG] = -1;
    this.newest = -1;
  }

  /** Where bucket `tag` lives in the array. */
  private at(tag: number): number {
    return this.offset + (tag & (BUCKETS - 1)) * this.stride;
  }

  /** Counts a packet of `sequence` sent or received at `time`, of `bytes`. */
  add(sequence: number, time: number, bytes: number): void {
    const tag = sequence >>> this.shift;
    const t = this.tally;
    const b = this.at(tag);
    if (t[b + TAG] !== tag) {
      // A new bucket only ahead of the newest (within half the sequence space); an older one
      // whose bucket was replaced is not counted.
      const ahead = this.newest < 0 ? 1 : (tag - this.newest) & this.tagMask;
      if (ahead === 0 || ahead > this.tagMask >>> 1) return;
      if (ahead >= BUCKETS) for (let i = 0; i < BUCKETS; i++) t[this.offset + i * this.stride + TAG] = -1;
      else for (let k = 1; k < ahead; k++) t[this.at(this.newest + k) + TAG] = -1;
      this.newest = tag;
      t[b + TAG] = tag;
      t[b + BYTES] = 0;
      t[b + START] = time;
      t[b + FINISH] = time;
      if (this.stride === SENT_STRIDE) {
        t[b + PACKETS] = 0;
        t[b + ACKED] = 0;
        t[b + ACKED_BYTES] = 0;
      }
    } else {
      if (time < t[b + START]) t[b + START] = time;
      if (time > t[b + FINISH]) t[b + FINISH] = time;
    }
    t[b + BYTES] += bytes;
    if (this.stride === SENT_STRIDE) t[b + PACKETS]++;
  }

  /** Counts the ack of a packet of `sequence`, of `bytes`, counted by `add` (once per packet; sent windows only). */
  acked(sequence: number, bytes: number): void {
    const tag = sequence >>> this.shift;
    const b = this.at(tag);
    const t = this.tally;
    if (t[b + TAG] !== tag) return;
    t[b + ACKED]++;
    t[b + ACKED_BYTES] += bytes;
  }

  /**
   * Smoothed packet loss (% of the packets counted not acked) and sent and acked kbps into `out`,
   * over the window's older half (sent windows only). Acked kbps is the bytes acked over the span
   * the packets were sent in.
   */
  writeSent(smoothing: StatsSmoothing, out: ReliableStats): void {
    const sums = this.sumOlderHalf();
    const packets = sums[PACKETS];
    const acked = sums[ACKED];
    if (packets > 0) {
      const loss = ((packets - acked) / packets) * 100;
      out.packetLoss = smooth(out.packetLoss, loss, smoothing.packetLossSmoothingFactor);
    } else out.packetLoss = 0;
    const factor = smoothing.bandwidthSmoothingFactor;
    out.sentKbps = rate(sums[BYTES], sums[START], sums[FINISH], out.sentKbps, factor);
    if (acked > 0) out.ackedKbps = rate(sums[ACKED_BYTES], sums[START], sums[FINISH], out.ackedKbps, factor);
  }

  /** Smoothed received kbps into `out`, over the window's older half. */
  writeReceived(smoothing: StatsSmoothing, out: ReliableStats): void {
    const sums = this.sumOlderHalf();
    const factor = smoothing.bandwidthSmoothingFactor;
    out.receivedKbps = rate(sums[BYTES], sums[START], sums[FINISH], out.receivedKbps, factor);
  }

  /**
   * The tallies of the window's older half, summed into the shared `windowSums` (by the bucket
   * offsets; START the earliest, FINISH the latest, ±Infinity when no bucket counts).
   */
  private sumOlderHalf(): Float64Array {
    const t = this.tally;
    const sums = windowSums;
    sums.fill(0);
    sums[START] = Number.POSITIVE_INFINITY;
    sums[FINISH] = Number.NEGATIVE_INFINITY;
    const sent = this.stride === SENT_STRIDE;
    for (let k = this.half; k < 2 * this.half && this.newest >= 0; k++) {
      const tag = (this.newest - k) & this.tagMask;
      const b = this.at(tag);
      if (t[b + TAG] !== tag) continue;
      sums[BYTES] += t[b + BYTES];
      if (t[b + START] < sums[START]) sums[START] = t[b + START];
      if (t[b + FINISH] > sums[FINISH]) sums[FINISH] = t[b + FINISH];
      if (sent) {
        sums[PACKETS] += t[b + PACKETS];
        sums[ACKED] += t[b + ACKED];
        sums[ACKED_BYTES] += t[b + ACKED_BYTES];
      }
    }
    return sums;
  }
}

/** A window's sums, laid out as one sent bucket: shared by every window (read at once by its caller). */
const windowSums = new Float64Array(SENT_STRIDE);

/** Smoothed kbps of `bytes` sent from `start` to `finish`; the previous figure when that span is empty. */
function rate(bytes: number, start: number, finish: number, previous: number, factor: number): number {
  if (start === Number.POSITIVE_INFINITY || !(finish > start)) return previous;
  return smooth(previous, ((bytes / (finish - start)) * 8) / 1000, factor);
}

/** Exponential smoothing as the reference does it: snap when already within 1e-5. */
function smooth(current: number, sample: number, factor: number): number {
  return Math.abs(current - sample) > 0.00001 ? current + (sample - current) * factor : sample;
}
