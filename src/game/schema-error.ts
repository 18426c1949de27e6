/** Errors of values a schema refused, said in the game API's words: the call, then the field. */
import { SchemaValueError } from '../schema/interpret.js';

/**
 * A value refused by its schema, as a RangeError naming the call, then the field
 * (`GameEntity.state (avatar 3): x: 9 is outside [-8, 8]…`); the SchemaValueError is its cause.
 */
export function schemaError(where: string, error: unknown): unknown {
  if (!(error instanceof SchemaValueError)) return error;
  return new RangeError(`${where}: ${fieldOf(error)}`, { cause: error });
}

/** `x: 9 is outside [-8, 8]…`: the field's path without its leading dot, then what is wrong. */
export function fieldOf(error: SchemaValueError): string {
  return `${error.path.replace(/^\./, '') || 'value'}: ${error.detail}`;
}
