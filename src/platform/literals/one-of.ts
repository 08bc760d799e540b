/**
 * The type guard of a closed list of strings (declared `as const`): whether a value read from outside (a body, a
 * row, an argument) is one of them.
 */
export function oneOf<T extends string>(values: readonly T[]): (value: unknown) => value is T {
  return (value: unknown): value is T =>
    typeof value === 'string' && (values as readonly string[]).includes(value);
}
