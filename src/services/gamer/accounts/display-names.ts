/**
 * Display names: what a player may call itself, and the folded key that makes names unique. A name
 * is 3–24 characters of letters, digits, marks that follow a letter, space, "_", "-" and "." — no
 * control, format (invisible) or symbol characters, no space at either end nor two in a row. The
 * key is the name in Unicode compatibility form (NFKC: full-width "Ａｎｎ" is "Ann"), case-folded,
 * so "Ann", "ANN" and "Ａｎｎ" are one name, and "Straße" and "STRASSE".
 */

export const DISPLAY_NAME_MIN_CHARS = 3;
export const DISPLAY_NAME_MAX_CHARS = 24;

const ALLOWED = /^[\p{L}\p{N}][\p{L}\p{M}\p{N} _.-]*$/u;
/** A letter may carry up to two combining marks (Devanagari, Thai …), never a pile of them. */
const MARK_RUN = /\p{M}{3,}/u;
const SPACE_RUN = / {2,}/;

/** Why `name` is not a valid display name, or null when it is (checked on its NFC form). */
export function displayNameProblem(name: string): string | null {
  if (typeof name !== 'string') return 'must be a string';
  if (name.length > DISPLAY_NAME_MAX_CHARS * 4) return `at most ${DISPLAY_NAME_MAX_CHARS} characters`;
  const nfc = name.normalize('NFC');
  const chars = [...nfc].length;
  if (chars < DISPLAY_NAME_MIN_CHARS || chars > DISPLAY_NAME_MAX_CHARS)
    return `must be ${DISPLAY_NAME_MIN_CHARS} to ${DISPLAY_NAME_MAX_CHARS} characters, got ${chars}`;
  if (nfc !== nfc.trim()) return 'no space at the start or the end';
  if (SPACE_RUN.test(nfc)) return 'no two spaces in a row';
  if (MARK_RUN.test(nfc)) return 'at most two combining marks on a letter';
  if (!ALLOWED.test(nfc))
    return 'letters, digits, space, "_", "-" and "." only, starting with a letter or digit';
  if (foldDisplayName(nfc).length === 0) return 'must not be empty';
  return null;
}

/** The stored form of a valid name (NFC). */
export function normalizeDisplayName(name: string): string {
  return name.normalize('NFC');
}

/**
 * The key names are unique by: compatibility form, case folded (upper then lower case, so "ß"
 * folds as "ss" and a final sigma as any sigma), compatibility form again.
 */
export function foldDisplayName(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
