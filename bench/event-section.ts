/**
 * `npm run build && node dist/bench/event-section.js`: bits an event costs in the ghost section,
 * for each kind (global or about an entity, unreliable or reliable), 50 events of a 3-bit
 * payload in one packet of an otherwise idle world of capacity 1024 (10-bit ids), on a lossless
 * link. Sizes are deterministic: the figures repeat exactly.
 */
import { commandLine } from '../scripts/cli.js';
import { defineMessage, MessageConnection, MessageFactory } from '../src/channels/index.js';
import {
  ClientMirror,
  defineEntity,
  defineEvent,
  type EmitOptions,
  ReplicationServer,
  ServerWorld,
} from '../src/replication/index.js';
import { t } from '../src/schema/schema.js';

const Tag = defineEntity('tag', t.object({ team: t.int(0, 3) }));
const Explosion = defineEvent('explosion', t.object({ radius: t.int(1, 8) }));
const Chat = defineEvent('chat', t.object({ text: t.string(20) }));
const events = [Explosion, Chat];
const factory = new MessageFactory([defineMessage('none', t.object({ n: t.uint8() }))]);
const COUNT = 50;

/** Bytes of the packet carrying `count` events of one kind (the section's head included). */
function packetBytes(count: number, reliable: boolean, entity: boolean): number {
  const world = new ServerWorld({ types: [Tag], capacity: 1024 });
  const replication = new ReplicationServer({ world, events });
  const mirror = new ClientMirror({ types: [Tag], capacity: 1024, events });
  const server = new MessageConnection({ factory, channels: [replication.channel], clientIndex: 0 });
  const client = new MessageConnection({ factory, channels: [mirror.channel], clientIndex: 0 });
  const tag = world.create(Tag, { team: 1 });
  let now = 0;
  const send = () => {
    now += 1 / 30;
    const { data, record } = server.writePacket(now);
    const copy = data.slice();
    if (!client.readPacket(copy, 0, copy.length)) throw new Error(client.lastRejection ?? 'refused');
    server.acked(record);
    return copy.length;
  };
  for (let i = 0; i < 5; i++) {
    world.tick();
    send();
  }
  const options: EmitOptions = entity ? { reliable, entity: tag } : { reliable };
  for (let k = 0; k < count; k++) replication.emit(Explosion, { radius: 3 }, options);
  world.tick();
  const bytes = send();
  if (mirror.stats().eventsDelivered !== count)
    throw new Error(`${mirror.stats().eventsDelivered} of ${count} delivered`);
  return bytes;
}

function main(): void {
  commandLine({
    name: 'node dist/bench/event-section.js',
    description: 'Bits per event in the ghost section, by kind, on an otherwise idle world.',
    flags: {},
  });
  for (const entity of [false, true])
    for (const reliable of [false, true]) {
      const one = packetBytes(1, reliable, entity);
      const many = packetBytes(COUNT + 1, reliable, entity);
      const bits = ((many - one) * 8) / COUNT;
      console.log(
        `${entity ? 'entity' : 'global'} ${reliable ? 'reliable  ' : 'unreliable'}: ${bits.toFixed(2)} bits per event; a packet with one event ${one} bytes`,
      );
    }
}

main();
