/** Event counters; every dropped input is counted under its reason. */
export interface ReliableCounters {
  packetsSent: number;
  packetsReceived: number;
  packetsAcked: number;
  packetsLost: number;
  /**
   * Packets whose ack arrived after they had been reported lost (by ackTimeout, or because their
   * sent-buffer slot was reused first), counted once per packet. The ack is ignored, so whatever the
   * record held is never freed by it: a count that keeps rising means the round trip is longer than
   * ackTimeout or than sentPacketsBufferSize packets take to send.
   */
  lateAcks: number;
  packetsStale: number;
  packetsDuplicate: number;
  packetsInvalid: number;
  packetsTooLargeToReceive: number;
  /** Packets the handler's process() refused. */
  packetsRefused: number;
  fragmentsSent: number;
  fragmentsReceived: number;
  fragmentsInvalid: number;
  fragmentsDuplicate: number;
}

/** A counters record with every count at zero. */
export function emptyReliableCounters(): ReliableCounters {
  return {
    packetsSent: 0,
    packetsReceived: 0,
    packetsAcked: 0,
    packetsLost: 0,
    lateAcks: 0,
    packetsStale: 0,
    packetsDuplicate: 0,
    packetsInvalid: 0,
    packetsTooLargeToReceive: 0,
    packetsRefused: 0,
    fragmentsSent: 0,
    fragmentsReceived: 0,
    fragmentsInvalid: 0,
    fragmentsDuplicate: 0,
  };
}
