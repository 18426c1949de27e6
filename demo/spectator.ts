/**
 * The demo page as a spectator (`?spectate`): no avatar and no input. It follows an avatar (F
 * picks the next one) or flies a free camera (arrows or WASD); the server is told either way
 * (`follow(id)` / `camera(x, y)`), so relevancy follows what the page shows.
 */
import type { GameClient } from '../src/index.js';
import { ARENA, type arena } from './game.js';

/** Metres a second the free camera flies. */
const CAMERA_SPEED = 12;

export class SpectatorCamera {
  /** The avatar followed (-1: the free camera). */
  following = -1;
  x = ARENA / 2;
  y = ARENA / 2;
  private last = performance.now();
  private sentX = Number.NaN;
  private sentY = Number.NaN;

  constructor(private readonly client: GameClient<typeof arena>) {}

  /** F: follow the next avatar (after the one followed now). */
  followNext(): void {
    const avatars = this.client.entities
      .filter((e) => e.type === 'avatar')
      .map((e) => e.id)
      .sort((a, b) => a - b);
    if (avatars.length === 0) return;
    const next = avatars.find((id) => id > this.following) ?? avatars[0];
    this.following = next;
    this.client.follow(next);
  }

  /** One frame: moves the free camera by the held direction (leaving the followed avatar), or onto it. */
  frame(dx: number, dy: number): void {
    const now = performance.now();
    const seconds = Math.min(0.1, (now - this.last) / 1000);
    this.last = now;
    if (dx !== 0 || dy !== 0) {
      this.following = -1;
      this.x = Math.max(0, Math.min(ARENA, this.x + dx * CAMERA_SPEED * seconds));
      this.y = Math.max(0, Math.min(ARENA, this.y + dy * CAMERA_SPEED * seconds));
    }
    if (this.following >= 0) {
      const followed = this.client.entities.find((e) => e.id === this.following);
      if (followed === undefined) this.following = -1;
      else {
        this.x = followed.state.x;
        this.y = followed.state.y;
      }
    }
    // The free camera is sent when it moved 2 m (the server takes 10 requests a second).
    if (this.following < 0 && Math.hypot(this.x - this.sentX, this.y - this.sentY) >= 2) {
      this.sentX = this.x;
      this.sentY = this.y;
      this.client.camera(this.x, this.y);
    }
  }
}
