/** Bytes and datagrams per frame, and the rates W3 reports from them. */

/** IPv4 (20) + UDP (8) header bytes per datagram. */
export const IP_UDP_BYTES = 28;

export interface Rates {
  /** Average kbit/s over all frames, without and with 28 B per datagram. */
  averageKbps: number;
  averageKbpsWithHeaders: number;
  /** The highest kbit/s over any window of `hz` consecutive frames (1 s), without and with. */
  peakKbps: number;
  peakKbpsWithHeaders: number;
  /** The same peak over the frames from `steadyFrom` on (after the initial full state). */
  steadyPeakKbpsWithHeaders: number;
  bytes: number;
  datagrams: number;
}

export class Traffic {
  private readonly bytes: Float64Array;
  private readonly datagrams: Float64Array;
  private frames = 0;

  constructor(
    capacity: number,
    readonly hz: number,
  ) {
    this.bytes = new Float64Array(capacity);
    this.datagrams = new Float64Array(capacity);
  }

  /** What one frame sent. */
  add(bytes: number, datagrams: number): void {
    this.bytes[this.frames] = bytes;
    this.datagrams[this.frames] = datagrams;
    this.frames++;
  }

  rates(steadyFrom: number): Rates {
    const { hz, frames } = this;
    let bytes = 0;
    let datagrams = 0;
    for (let f = 0; f < frames; f++) {
      bytes += this.bytes[f];
      datagrams += this.datagrams[f];
    }
    const seconds = frames / hz;
    const kbps = (b: number) => (b * 8) / 1000;
    const peak = (headers: number, from: number) => {
      let best = 0;
      let sum = 0;
      for (let f = from; f < frames; f++) {
        sum += this.bytes[f] + headers * this.datagrams[f];
        if (f - from >= hz) sum -= this.bytes[f - hz] + headers * this.datagrams[f - hz];
        if (f - from >= hz - 1 || f === frames - 1) best = Math.max(best, sum);
      }
      // A window shorter than 1 s (a run under 1 s) is scaled to a rate.
      return kbps(best) * (frames - from >= hz ? 1 : hz / Math.max(1, frames - from));
    };
    return {
      averageKbps: kbps(bytes) / seconds,
      averageKbpsWithHeaders: kbps(bytes + IP_UDP_BYTES * datagrams) / seconds,
      peakKbps: peak(0, 0),
      peakKbpsWithHeaders: peak(IP_UDP_BYTES, 0),
      steadyPeakKbpsWithHeaders: peak(IP_UDP_BYTES, Math.min(steadyFrom, frames - 1)),
      bytes,
      datagrams,
    };
  }
}
