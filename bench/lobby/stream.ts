import { compressedFloat } from '../../src/serialize/compressed-float.js';
import type { Stream } from '../../src/serialize/stream.js';
import {
  HEADING_RANGE,
  HEADING_RESOLUTION,
  type Item,
  type Lobby,
  MAX_ITEMS,
  MAX_PARTY,
  MAX_PLAYERS,
  NAME_MAX_BYTES,
  type Player,
  POSITION_RANGE,
  POSITION_RESOLUTION,
  SCORE_BITS,
  TEAMS,
} from './data.js';

/** The lobby written by hand as one unified serialize function: it writes, reads and measures. */
export const POSITION = compressedFloat(-POSITION_RANGE, POSITION_RANGE, POSITION_RESOLUTION);
export const HEADING = compressedFloat(-HEADING_RANGE, HEADING_RANGE, HEADING_RESOLUTION);

function emptyPlayer(): Player {
  return {
    name: '',
    team: TEAMS[0],
    score: 0,
    ready: false,
    party: undefined,
    inventory: [],
    x: 0,
    y: 0,
    heading: 0,
  };
}

export function serializePlayer(s: Stream, p: Player): void {
  p.name = s.string(p.name, NAME_MAX_BYTES);
  p.team = TEAMS[s.int(s.isWriting ? TEAMS.indexOf(p.team) : 0, 0, TEAMS.length - 1)];
  p.score = s.bits(p.score, SCORE_BITS);
  p.ready = s.bool(p.ready);
  const party = s.bool(p.party !== undefined);
  p.party = party ? s.int(p.party ?? 0, 0, MAX_PARTY) : undefined;
  const inventory = p.inventory;
  const count = s.int(inventory.length, 0, MAX_ITEMS);
  for (let i = 0; i < count && s.ok; i++) {
    if (i === inventory.length) inventory.push({ item: 0, count: 0 } satisfies Item);
    const item = inventory[i];
    item.item = s.int(item.item, 0, 255);
    item.count = s.int(item.count, 0, 99);
  }
  if (s.isReading && s.ok) inventory.length = count;
  p.x = s.compressedFloat(p.x, POSITION);
  p.y = s.compressedFloat(p.y, POSITION);
  p.heading = s.compressedFloat(p.heading, HEADING);
}

/** Reading fills `lobby` in place, growing its player list one player at a time as they are read. */
export function serializeLobby(s: Stream, lobby: Lobby): void {
  const players = lobby.players;
  const count = s.int(players.length, 0, MAX_PLAYERS);
  for (let i = 0; i < count && s.ok; i++) {
    if (i === players.length) players.push(emptyPlayer());
    serializePlayer(s, players[i]);
  }
  if (s.isReading && s.ok) players.length = count;
}
