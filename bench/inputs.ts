/**
 * `npm run build && node dist/bench/inputs.js`: input bytes per second per client at 60 Hz, for a
 * typical input (2 axes at 1/128 and 2 buttons, changing a few times a second), at 0% and 5%
 * loss, 50 ms each way, without and with view ticks (a render position drifting by about 1/256
 * tick a tick against the input tick, as clock sync trims the rates). One client packet and one server packet per tick; the packet layer's ack
 * reaches the client one round trip after the packet (later when the return packet is lost: its
 * successor carries the ack again). Counts the input entry only (the packet and connection
 * headers are the same with or without inputs). Seeded: the figures repeat exactly.
 */
import { commandLine } from '../scripts/cli.js';
import {
  defineMessage,
  MessageConnection,
  MessageFactory,
  type PacketRecord,
} from '../src/channels/index.js';
import { InputReceiver, InputSender } from '../src/latency/index.js';
import { prng } from '../src/random/prng.js';
import { t } from '../src/schema/schema.js';

const Input = t.object({
  x: t.float(-1, 1, 1 / 128),
  y: t.float(-1, 1, 1 / 128),
  fire: t.bool(),
  jump: t.bool(),
});
const factory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);
const TICK_RATE = 60;
const ONE_WAY_TICKS = 3; // 50 ms
const SECONDS = 120;

/** The input of a tick: the axes step every ~0.2-0.4 s, the buttons toggle now and then. */
function inputOf(tick: number) {
  return {
    x: Math.round(Math.sin(Math.floor(tick / 13) * 1.7) * 8) / 8,
    y: Math.round(Math.cos(Math.floor(tick / 23) * 2.3) * 8) / 8,
    fire: tick % 50 < 8,
    jump: tick % 110 < 3,
  };
}

function run(lossPercent: number, withView: boolean) {
  const next = prng(7);
  const sender = new InputSender({ schema: Input });
  const receiver = new InputReceiver({ schema: Input, tickRate: TICK_RATE, maxClients: 1 });
  const client = new MessageConnection({ factory, channels: [sender.channel], clientIndex: 0 });
  const server = new MessageConnection({ factory, channels: [receiver.channel], clientIndex: 0 });
  const lost = () => next() * 100 < lossPercent;
  const toServer: { at: number; bytes: Uint8Array; record: PacketRecord }[] = [];
  const acks: { at: number; record: PacketRecord }[] = [];
  const toClient: { at: number; bytes: Uint8Array }[] = [];
  let starved = 0;
  const ticks = SECONDS * TICK_RATE;
  for (let tick = 0; tick < ticks; tick++) {
    const now = tick / TICK_RATE;
    // The client leads by the one-way delay and two ticks of buffer.
    const inputTick = tick + ONE_WAY_TICKS + 2;
    // The render position drifts against the input tick as clock sync trims both clocks' rates.
    const view = withView ? inputTick - 11 - 0.3 * Math.sin(tick / 50) : Number.NaN;
    sender.push(inputTick, inputOf(tick), view);
    const up = client.writePacket(now);
    if (!lost()) toServer.push({ at: tick + ONE_WAY_TICKS, bytes: up.data.slice(), record: up.record });
    while (toServer.length > 0 && toServer[0].at <= tick) {
      const p = toServer.shift()!;
      if (!server.readPacket(p.bytes, 0, p.bytes.length)) throw new Error(server.lastRejection ?? 'refused');
      // The ack rides the next server packet that gets through.
      let back = ONE_WAY_TICKS;
      while (lost()) back++;
      acks.push({ at: tick + back, record: p.record });
    }
    const before = receiver.stats(0)?.starved ?? 0;
    receiver.take(0, tick);
    starved += (receiver.stats(0)?.starved ?? 0) - before;
    const down = server.writePacket(now);
    server.acked(down.record);
    if (!lost()) toClient.push({ at: tick + ONE_WAY_TICKS, bytes: down.data.slice() });
    acks.sort((a, b) => a.at - b.at);
    while (acks.length > 0 && acks[0].at <= tick) client.acked(acks.shift()!.record);
    while (toClient.length > 0 && toClient[0].at <= tick) {
      const p = toClient.shift()!;
      client.readPacket(p.bytes, 0, p.bytes.length);
    }
  }
  const s = sender.stats();
  return {
    bytesPerSecond: s.inputBits / 8 / SECONDS,
    bitsPerPacket: s.inputBits / s.packets,
    inputsPerPacket: receiver.stats(0)!.duplicates / s.packets + 1,
    starved,
  };
}

function main(): void {
  commandLine({
    name: 'node dist/bench/inputs.js',
    description: 'Input bytes per second per client at 60 Hz (2 axes + 2 buttons), at 0% and 5% loss.',
    flags: {},
  });
  for (const withView of [false, true])
    for (const loss of [0, 5]) {
      const r = run(loss, withView);
      console.log(
        `${withView ? 'with view ticks' : 'no view ticks  '}, ${loss}% loss: ${r.bytesPerSecond.toFixed(0)} input bytes/s per client (${r.bitsPerPacket.toFixed(1)} bits a packet, ~${r.inputsPerPacket.toFixed(1)} inputs a packet), ${r.starved} ticks starved`,
      );
    }
}

main();
