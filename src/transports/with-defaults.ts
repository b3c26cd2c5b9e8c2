/** Options over their defaults: an option left out, or given as undefined, takes its default. */
export function withDefaults<O extends object, D extends Partial<O>>(defaults: D, options: O): O & Required<Pick<O, keyof D & keyof O>> & D {
  const resolved = { ...options } as Record<string, unknown>;
  for (const [key, value] of Object.entries(defaults)) resolved[key] ??= value;
  return resolved as O & Required<Pick<O, keyof D & keyof O>> & D;
}
