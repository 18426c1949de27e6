/** The feed's channel names a zoned world uses, from its prefix (one home, so every party agrees). */

/** Where zone `zone` publishes its feed batches (its gateways and neighbours listen). */
export function feedChannel(prefix: string, zone: number): string {
  return `${prefix}zone.${zone}.feed`;
}

/** Where gateways (and zones forwarding a departed player's traffic) send zone `zone` its batches. */
export function inputChannel(prefix: string, zone: number): string {
  return `${prefix}zone.${zone}.in`;
}
