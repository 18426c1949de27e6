/**
 * The lobby workload (issue 16): a few hundred players as a lobby or scoreboard sends them — short
 * names (some multi-byte UTF-8), an enum, a 17-bit score, a flag, an optional index, a small nested
 * inventory and three quantized floats. Drawn from xorshift32 with a fixed seed, so every run and
 * every contestant sees the same lobby.
 */
import { xorshift32 } from '../support/xorshift.js';
export const TEAMS = ['red', 'blue', 'green', 'spectator'] as const;
export type Team = (typeof TEAMS)[number];

export interface Item {
  item: number;
  count: number;
}

export interface Player {
  name: string;
  team: Team;
  score: number;
  ready: boolean;
  party?: number;
  inventory: Item[];
  x: number;
  y: number;
  heading: number;
}

export interface Lobby {
  players: Player[];
}

export const LOBBY_PLAYERS = 300;
export const LOBBY_SEED = 0x10bb7;
/** The most players, name bytes and items a lobby may hold (the schemas' declared maxima). */
export const MAX_PLAYERS = 512;
export const NAME_MAX_BYTES = 48;
export const MAX_ITEMS = 8;
export const MAX_PARTY = 15;
export const SCORE_BITS = 17;
export const POSITION_RANGE = 512;
export const POSITION_RESOLUTION = 0.01;
export const HEADING_RANGE = Math.PI;
export const HEADING_RESOLUTION = 0.001;

const ASCII = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';
/** Two-byte (Latin, Cyrillic) and three-byte (CJK) UTF-8 characters, all in the BMP. */
const MULTI_BYTE = 'éüñøßäöçÅЖзыкдрвСД竜星火風雪';

export function generateLobby(count = LOBBY_PLAYERS, seed = LOBBY_SEED): Lobby {
  const { next, float } = xorshift32(seed);
  const players: Player[] = [];
  for (let i = 0; i < count; i++) {
    const length = 3 + (next() % 14);
    // About one name in four mixes in multi-byte characters (16 of them take at most 48 bytes).
    const multiByte = next() % 4 === 0;
    let name = '';
    for (let k = 0; k < length; k++) {
      const r = next();
      name +=
        multiByte && r % 3 === 0
          ? MULTI_BYTE[(r >>> 2) % MULTI_BYTE.length]
          : ASCII[(r >>> 2) % ASCII.length];
    }
    const team = TEAMS[next() % TEAMS.length];
    const score = next() % 2 ** SCORE_BITS;
    const ready = next() % 2 === 0;
    const partyDraw = next();
    const inventory: Item[] = [];
    const items = next() % (MAX_ITEMS + 1);
    for (let k = 0; k < items; k++) inventory.push({ item: next() % 256, count: next() % 100 });
    const player: Player = {
      name,
      team,
      score,
      ready,
      party: partyDraw % 2 === 0 ? (partyDraw >>> 1) % (MAX_PARTY + 1) : undefined,
      inventory,
      x: float(-POSITION_RANGE, POSITION_RANGE),
      y: float(-POSITION_RANGE, POSITION_RANGE),
      heading: float(-HEADING_RANGE, HEADING_RANGE),
    };
    players.push(player);
  }
  return { players };
}

/** A cheap digest of a decoded lobby, computed inside timed decode loops. */
export function digestLobby(lobby: {
  players: ArrayLike<{ score: number; inventory: ArrayLike<unknown>; name: string }>;
}): number {
  const players = lobby.players;
  const last = players[players.length - 1];
  return players.length + last.score + last.inventory.length + last.name.length;
}
