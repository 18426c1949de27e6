/**
 * The channels of a GameClient, player or spectator (browser-safe). A spectator's input sender
 * takes an empty input and its channel writes nothing; its request sender carries what it
 * watches. A player's request channel never writes (its request stays unset).
 * @internal
 */
import type { CustomChannelConfig } from '../channels/config.js';
import { InputSender } from '../latency/input-sender.js';
import { type Schema, t } from '../schema/schema.js';
import { RefusingChannel, SpectatorRequestSender } from './spectator-channels.js';

export interface ClientChannels {
  /** What the latency layer pushes each tick's input into. */
  inputs: InputSender<unknown>;
  /** Channel 1: the inputs (a spectator's writes nothing and takes nothing). */
  inputsChannel: CustomChannelConfig;
  /** What a spectator watches (`follow` / `camera`). */
  requests: SpectatorRequestSender;
  /** Channel 3: the spectator's requests. */
  requestsChannel: CustomChannelConfig;
  /** A spectator's input each tick (an empty object, never sent). */
  noInput: unknown;
}

export function spectatorChannels(input: Schema<unknown>, spectating: boolean): ClientChannels {
  const requests = new SpectatorRequestSender();
  const requestsChannel: CustomChannelConfig = { kind: 'custom', priority: 0, create: () => requests };
  if (!spectating) {
    const inputs = new InputSender<unknown>({ schema: input });
    return { inputs, inputsChannel: inputs.channel, requests, requestsChannel, noInput: undefined };
  }
  const inputs = new InputSender<unknown>({ schema: t.object({}) as Schema<unknown> });
  const silent = new RefusingChannel(() => {}, 'a spectator is sent no input reports');
  return {
    inputs,
    inputsChannel: { ...inputs.channel, create: () => silent },
    requests,
    requestsChannel,
    noInput: {},
  };
}
