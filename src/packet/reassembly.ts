/** An empty buffer, shared: a reassembly slot's buffer before its packet's first fragment and after it completes. */
export const NO_BYTES = new Uint8Array(0);

/** A packet being reassembled; made when a slot is first used, its buffer freed once the packet is whole. */
export class Reassembly {
  received: Uint8Array;
  numReceived = 0;
  numTotal = 0;
  /** Payload bytes once the last fragment is in. */
  payloadBytes = 0;
  headerBytes = 0;
  /**
   * [MAX_PACKET_HEADER_BYTES of room for the header][fragments]: made for the packet (or taken from
   * the endpoint's spare), reused by the slot's next packet if it was never completed, handed to the
   * spare when it completes.
   */
  buffer = NO_BYTES;

  constructor(maxFragments: number) {
    this.received = new Uint8Array(maxFragments);
  }
}
