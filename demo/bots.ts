/**
 * The demo server's own bots, so the arena is alive with one player: ArenaBots (tools/live-bot.ts,
 * the ones `npm start` plays) connected to the same MessageServer over an in-process
 * MemoryNetwork, each with a connect token of its own, predicting and interpolating as a page does.
 */

import { MessageClient } from '../src/channels/index.js';
import { generateConnectToken } from '../src/connection/index.js';
import { type Address, MemoryNetwork, type MemoryTransport } from '../src/transport/index.js';
import { ArenaBot } from '../tools/live-bot.js';
import { factory, PROTOCOL_ID } from './protocol.js';

interface Bot {
  readonly arenaBot: ArenaBot;
  readonly client: MessageClient;
  readonly transport: MemoryTransport;
}

export class DemoBots {
  /** The server's transport on the bots' network: give it to the MessageServer. */
  readonly serverTransport: MemoryTransport;
  private readonly network = new MemoryNetwork();
  private readonly bots: Bot[] = [];

  constructor(readonly count: number) {
    this.serverTransport = this.network.createTransport('10.77.0.1:40000');
  }

  /** Connects every bot (avatar numbers 0..count-1, carried in the token's user data). */
  connect(privateKey: Uint8Array, unixNow: number, now: number): void {
    for (let i = 0; i < this.count; i++) {
      const arenaBot = new ArenaBot(i, () => client.client.endpoint?.rttSampleMs ?? 0);
      const transport = this.network.createTransport();
      const client: MessageClient = new MessageClient({
        transport,
        factory,
        channels: [arenaBot.mirror.channel, arenaBot.sender.channel],
      });
      const userData = new Uint8Array(256);
      userData[0] = i;
      client.connect(
        generateConnectToken({
          protocolId: PROTOCOL_ID,
          privateKey,
          clientId: BigInt(1 + i),
          serverAddresses: [this.serverTransport.localAddress as Address],
          now: unixNow,
          userData,
        }),
        now,
      );
      this.bots.push({ arenaBot, client, transport });
    }
  }

  /** One frame: each bot receives, predicts, samples and sends its due inputs. */
  frame(now: number, serverPosition: number): void {
    for (const bot of this.bots) {
      bot.client.update(now);
      if (bot.client.connected) bot.arenaBot.frame(now, serverPosition);
    }
  }

  get connected(): number {
    return this.bots.filter((b) => b.client.connected).length;
  }

  close(): void {
    for (const bot of this.bots) {
      bot.client.disconnect();
      bot.transport.close();
    }
    this.serverTransport.close();
  }
}
