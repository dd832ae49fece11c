// Tool names as callers see them: the server's name, two underscores, the server's own tool name.
// Server names may not contain `__` (the config refuses it), so the first `__` always splits a name.

export const SEPARATOR = '__';

export function namespaced(server: string, tool: string): string {
  return `${server}${SEPARATOR}${tool}`;
}

/** The server and tool a namespaced name stands for, or null when it has no separator. */
export function splitName(name: string): { server: string; tool: string } | null {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return null;
  return { server: name.slice(0, at), tool: name.slice(at + SEPARATOR.length) };
}
