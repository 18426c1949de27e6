/**
 * A private field (an entity type's `visibility`) is held by some clients only: on a client it is
 * absent where this client does not hold it. These types make that true at compile time, from
 * the literal keys of each `visibility` declaration, with nothing for the user to write: on
 * clients each private field is optional (`ammo?: number`), on the server it stays required.
 */

/**
 * The private field names of each entity type, from what defineGame inferred of its `visibility`
 * declarations (`X[K]`: the declaration of type K, or unknown where there is none).
 */
export type PrivateFieldsOf<E, X> = {
  [K in keyof E]: K extends keyof X
    ? unknown extends X[K]
      ? never
      : keyof X[K] & keyof E[K] & string
    : never;
};

/** State `S` as a client holds it: the fields named in `F` optional, the others as declared. */
export type PrivateOptional<S, F> = [F] extends [never]
  ? S
  : Flatten<Omit<S, F & PropertyKey> & Partial<Pick<S, F & keyof S>>>;

/** One object type from an intersection (so an editor shows `{ x: number; ammo?: number }`). */
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** Where defineGame learns the `visibility` keys from (only their keys are used). */
export interface VisibilityKeys<X> {
  readonly entities: { readonly [K in keyof X]: { readonly visibility?: X[K] } };
}

/**
 * Holds each `visibility` key to a field of its type's state (the keys are inferred apart from
 * the state, so this check says what a plain excess-property check would).
 */
export interface VisibilityNamesFields<E, X> {
  readonly entities: {
    readonly [K in keyof X]: {
      readonly visibility?: {
        readonly [F in keyof X[K]]: F extends keyof E[K & keyof E] ? 'owner' | 'team' : never;
      };
    };
  };
}
