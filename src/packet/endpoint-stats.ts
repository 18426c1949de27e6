import type { ReceivedPackets, SentPackets } from './packet-history.js';

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
 * channels) would otherwise make every update walk a thousand entries and average over half a
 * minute of traffic from up to half a minute ago.
 */
export const STATS_WINDOW = 256;

/**
 * Min / max / average RTT and the jitter figures over `history` (ms; negative entries are empty
 * slots). Depends on the history alone: the endpoint calls it only after a new sample.
 */
export function updateRttStats(history: Float32Array, out: ReliableStats): void {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < history.length; i++) {
    const rtt = history[i];
    if (rtt < 0) continue;
    if (rtt < min) min = rtt;
    if (rtt > max) max = rtt;
    sum += rtt;
    count++;
  }
  out.rttMinMs = count > 0 ? min : 0;
  out.rttMaxMs = max;
  out.rttAvgMs = count > 0 ? sum / count : 0;
  const rttMin = out.rttMinMs;
  const rttAvg = out.rttAvgMs;
  let jitterSum = 0;
  let jitterMax = 0;
  let deviation = 0;
  for (let i = 0; i < history.length; i++) {
    const rtt = history[i];
    if (rtt < 0) continue;
    const d = rtt - rttMin;
    jitterSum += d;
    if (d > jitterMax) jitterMax = d;
    deviation += (rtt - rttAvg) * (rtt - rttAvg);
  }
  out.jitterAvgVsMinRttMs = count > 0 ? jitterSum / count : 0;
  out.jitterMaxVsMinRttMs = jitterMax;
  out.jitterStddevVsAvgRttMs = count > 0 ? Math.sqrt(deviation / count) : 0;
}

/**
 * Packet loss and sent / acked / received kbps, smoothed into `out`: loss, sent and acked bandwidth
 * over the older half of the statistics window of `sent` (the newer half may still be in flight);
 * received bandwidth likewise over `received`.
 */
export function updateWindowStats(
  sent: SentPackets<unknown>,
  received: ReceivedPackets,
  smoothing: StatsSmoothing,
  out: ReliableStats,
): void {
  const sentWindow = Math.min(sent.size, STATS_WINDOW);
  const sentBase = (sent.sequence - sentWindow + 1 + 0xffff) & 0xffff;
  const samples = sentWindow >>> 1;
  // One pass for loss and both sent-side bandwidths.
  let numSent = 0;
  let numDropped = 0;
  let sentBytes = 0;
  let sentStart = Number.POSITIVE_INFINITY;
  let sentFinish = 0;
  let ackedBytes = 0;
  let ackedStart = Number.POSITIVE_INFINITY;
  let ackedFinish = 0;
  for (let i = 0; i < samples; i++) {
    const index = sent.indexOf((sentBase + i) & 0xffff);
    if (index < 0) continue;
    numSent++;
    const time = sent.time[index];
    const bytes = sent.bytesAt(index);
    sentBytes += bytes;
    if (time < sentStart) sentStart = time;
    if (time > sentFinish) sentFinish = time;
    if (!sent.acked(index)) {
      numDropped++;
      continue;
    }
    ackedBytes += bytes;
    if (time < ackedStart) ackedStart = time;
    if (time > ackedFinish) ackedFinish = time;
  }
  if (numSent > 0) {
    const loss = (numDropped / numSent) * 100;
    out.packetLoss = smooth(out.packetLoss, loss, smoothing.packetLossSmoothingFactor);
  } else out.packetLoss = 0;
  const factor = smoothing.bandwidthSmoothingFactor;
  out.sentKbps = rate(sentBytes, sentStart, sentFinish, out.sentKbps, factor);
  out.ackedKbps = rate(ackedBytes, ackedStart, ackedFinish, out.ackedKbps, factor);
  const receivedWindow = Math.min(received.size, STATS_WINDOW);
  const receivedBase = (received.sequence - receivedWindow + 1 + 0xffff) & 0xffff;
  let receivedBytes = 0;
  let receivedStart = Number.POSITIVE_INFINITY;
  let receivedFinish = 0;
  for (let i = 0, n = receivedWindow >>> 1; i < n; i++) {
    const index = received.statsIndex((receivedBase + i) & 0xffff);
    if (index < 0) continue;
    const time = received.timeAt(index);
    receivedBytes += received.bytesAt(index);
    if (time < receivedStart) receivedStart = time;
    if (time > receivedFinish) receivedFinish = time;
  }
  out.receivedKbps = rate(receivedBytes, receivedStart, receivedFinish, out.receivedKbps, factor);
}

/** Smoothed kbps of `bytes` sent from `start` to `finish`; the previous figure when that span is empty. */
function rate(bytes: number, start: number, finish: number, previous: number, factor: number): number {
  if (start === Number.POSITIVE_INFINITY || !(finish > start)) return previous;
  return smooth(previous, ((bytes / (finish - start)) * 8) / 1000, factor);
}

/** Exponential smoothing as the reference does it: snap when already within 1e-5. */
function smooth(current: number, sample: number, factor: number): number {
  return Math.abs(current - sample) > 0.00001 ? current + (sample - current) * factor : sample;
}
