/**
 * How a zoned world gets its rules: each zone builds its own from the game's rules module, which
 * every zone thread or process imports itself (functions do not cross threads or machines). The
 * module's export is either the rules (`game.rules({...})`, the same for every zone) or a function
 * of the zone that returns them (rules that must know where they run: what zone 0 alone spawns).
 */
import type { GameRules } from '../game/game-rules.js';

/** Which zone the rules run in. */
export interface ZoneInfo {
  /** This zone's index. */
  readonly zone: number;
  /** How many zones the world has. */
  readonly zones: number;
}

/** What a zoned world's rules module exports. */
export type ZoneRules = GameRules | ((zone: ZoneInfo) => GameRules);

function isRules(value: unknown): value is GameRules {
  return typeof value === 'object' && value !== null && 'game' in value && 'hooks' in value;
}

/** The rules factory `rules` stands for; throws a TypeError naming `where` for anything else. */
export function zoneRulesFactory(where: string, rules: unknown): (zone: ZoneInfo) => GameRules {
  if (isRules(rules)) return () => rules;
  if (typeof rules !== 'function')
    throw new TypeError(
      `${where}: the rules must be game.rules({...}) or a function (zone) => game.rules({...})`,
    );
  return (zone) => {
    const made: unknown = rules(zone);
    if (!isRules(made)) throw new TypeError(`${where}: the rules function must return game.rules({...})`);
    return made;
  };
}

/** Imports the rules module at `url` and returns its export `name` as a factory. */
export async function loadZoneRules(url: string, name = 'default'): Promise<(zone: ZoneInfo) => GameRules> {
  const module = (await import(url)) as Record<string, unknown>;
  if (!(name in module)) throw new TypeError(`zone rules: ${url} has no export named ${name}`);
  return zoneRulesFactory(`zone rules (${url})`, module[name]);
}
