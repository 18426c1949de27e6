/**
 * Hit shapes in the game's plane (x, y): what an entity type's `hitbox` returns and what
 * `game.hitTest` is asked about. Two kinds cover most 2D games; each is tested exactly against
 * the other (no bounding-box approximation in the answer).
 */

/** A disc: centre and radius (the game's units). */
export interface Circle {
  readonly type: 'circle';
  readonly x: number;
  readonly y: number;
  readonly radius: number;
}

/** An axis-aligned rectangle: centre, width and height. */
export interface Box {
  readonly type: 'box';
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export type Shape = Circle | Box;

/** Throws a TypeError or RangeError naming `where` unless `shape` is a well-formed Shape. */
export function checkShape(where: string, shape: Shape): void {
  if (typeof shape !== 'object' || shape === null) throw new TypeError(`${where}: a shape must be an object`);
  const finite = (name: string, v: number) => {
    if (!Number.isFinite(v)) throw new RangeError(`${where}: shape.${name} must be finite, got ${v}`);
  };
  finite('x', shape.x);
  finite('y', shape.y);
  if (shape.type === 'circle') {
    finite('radius', shape.radius);
    if (shape.radius < 0) throw new RangeError(`${where}: shape.radius must be >= 0, got ${shape.radius}`);
  } else if (shape.type === 'box') {
    finite('width', shape.width);
    finite('height', shape.height);
    if (shape.width < 0 || shape.height < 0)
      throw new RangeError(`${where}: shape.width and shape.height must be >= 0`);
  } else
    throw new TypeError(
      `${where}: shape.type must be 'circle' or 'box', got ${String((shape as Shape).type)}`,
    );
}

/** Writes the shape's box as [minX, minY, minZ, maxX, maxY, maxZ] (z is 0: the game is flat). */
export function shapeBounds(shape: Shape, out: Float64Array): Float64Array {
  const hx = shape.type === 'circle' ? shape.radius : shape.width / 2;
  const hy = shape.type === 'circle' ? shape.radius : shape.height / 2;
  out[0] = shape.x - hx;
  out[1] = shape.y - hy;
  out[3] = shape.x + hx;
  out[4] = shape.y + hy;
  out[2] = out[5] = 0;
  return out;
}

/** Whether two shapes touch (edges count). */
export function shapesOverlap(a: Shape, b: Shape): boolean {
  if (a.type === 'circle' && b.type === 'circle') {
    const r = a.radius + b.radius;
    return (a.x - b.x) ** 2 + (a.y - b.y) ** 2 <= r * r;
  }
  if (a.type === 'box' && b.type === 'box')
    return Math.abs(a.x - b.x) * 2 <= a.width + b.width && Math.abs(a.y - b.y) * 2 <= a.height + b.height;
  const circle = (a.type === 'circle' ? a : b) as Circle;
  const box = (a.type === 'box' ? a : b) as Box;
  // The box's point nearest the circle's centre.
  const nx = Math.max(box.x - box.width / 2, Math.min(circle.x, box.x + box.width / 2));
  const ny = Math.max(box.y - box.height / 2, Math.min(circle.y, box.y + box.height / 2));
  return (circle.x - nx) ** 2 + (circle.y - ny) ** 2 <= circle.radius * circle.radius;
}
