/**
 * A replay file (or a clip) refused: why, and the byte offset where reading found it. Thrown by
 * `ReplayFile.open` and by a ReplayPlayer given such bytes; nothing else in a file can throw.
 */
export class ReplayError extends Error {
  constructor(
    /** What is wrong, e.g. `chunk body CRC mismatch`. */
    readonly reason: string,
    /** The byte offset in the file where the fault was found. */
    readonly offset: number,
  ) {
    super(`replay refused: ${reason} at byte ${offset}`);
    this.name = 'ReplayError';
  }
}
