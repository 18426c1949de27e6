import type { ReliableEndpoint } from '../packet/reliable-endpoint.js';
import type { Address } from '../transport/address.js';
import { KEY_BYTES } from './constants.js';
import { ReplayProtection } from './replay-protection.js';

/** A free slot's keys and user data: shared and never written (a connection brings its own). */
const NO_KEY = new Uint8Array(KEY_BYTES);
const NO_USER_DATA = new Uint8Array(0);

/** One of a server's client slots: a connection's keys, sequences, timers and endpoint. */
export class ClientSlot {
  connected = false;
  confirmed = false;
  clientId = 0n;
  address = '' as Address;
  transport = 0;
  sendKey: Uint8Array = NO_KEY;
  receiveKey: Uint8Array = NO_KEY;
  sequence = 0;
  timeout = 0;
  lastSend = 0;
  lastReceive = 0;
  userData: Uint8Array = NO_USER_DATA;
  readonly replay = new ReplayProtection();
  endpoint: ReliableEndpoint<unknown> | null = null;
}

export { NO_KEY, NO_USER_DATA };
