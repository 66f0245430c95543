// What can be an environment variable of a session's program. The
// environment reaches the program as "NAME=VALUE" strings ending in NUL, so
// a name holding "=" would come out as another variable (A=B and "c" turn
// into A, "B=c"), an empty name as none, and a NUL would cut either short.
// The server refuses such an env, and the CLI before it sends one.

/** Why `name` cannot name an environment variable, or null when it can. */
export function envNameProblem(name: string): string | null {
  if (name === '') return 'is empty';
  if (name.includes('=')) return 'contains "="';
  if (name.includes('\0')) return 'contains a NUL character';
  return null;
}

/** Why `value` cannot be an environment variable's value, or null when it can. */
export function envValueProblem(value: string): string | null {
  return value.includes('\0') ? 'contains a NUL character' : null;
}
