import type { GameClient } from '../../src/game/game-client.js';
import { until } from './until.js';

/**
 * Updates players (with a still input, `{ dx: 0 }`) and spectators (no input) at 60 Hz until
 * `check` holds; fails naming `what` after `ms`.
 */
export async function pumpClients(
  clients: GameClient[],
  what: string,
  ms: number,
  check: () => boolean,
): Promise<void> {
  const timer = setInterval(() => {
    for (const client of clients) {
      if (client.spectating) client.update();
      else client.update({ dx: 0 });
    }
  }, 1000 / 60);
  try {
    await until(what, ms, check);
  } finally {
    clearInterval(timer);
  }
}
