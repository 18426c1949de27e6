/**
 * The README's unified serialize function and packet envelope example, verbatim between the region markers; what it leaves to the reader
 * is declared around it so that tsc checks it (test/project/readme-examples.test.ts).
 */
interface Player {
  id: number;
  x: number;
  name: string;
  items: number[];
}

// #region readme
import { compressedFloat, MeasureStream, type Stream } from 'ghostwire/serialize';

const POSITION = compressedFloat(-512, 512, 0.01);

function serializePlayer(s: Stream, p: Player): void {
  p.id = s.int(p.id, 0, 4095);
  p.x = s.compressedFloat(p.x, POSITION);
  p.name = s.string(p.name, 32);           // UTF-8, at most 32 bytes
  const count = s.int(p.items.length, 0, 16);
  if (s.isReading) p.items.length = count;
  for (let i = 0; i < count && s.ok; i++) p.items[i] = s.uint16(p.items[i] ?? 0);
}
// #endregion

declare const player: Player;
declare const datagram: Uint8Array;
void MeasureStream;

// #region readme
import { PacketEnvelope } from 'ghostwire/serialize';

const envelope = new PacketEnvelope({ protocolId: 0x1234_5678_9abc_def0n, maxPacketBytes: 1200 });
const packet = envelope.write((s) => serializePlayer(s, player));
const result = envelope.read(datagram, (s) => serializePlayer(s, player)); // { ok } | { ok: false, reason }
// #endregion
