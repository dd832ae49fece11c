// Custom tools (free-form input, e.g. Codex's apply_patch) on upstreams that only have JSON-argument
// function tools: carried as a function with one string parameter `input`, and restored on the way back.

/** The input schema a custom tool is sent with. */
export const CUSTOM_TOOL_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw free-form input of the tool.' } },
  required: ['input'],
  additionalProperties: false,
});

/** A custom tool call's free-form input as function arguments (JSON text). */
export function wrapCustomInput(input: string): string {
  return JSON.stringify({ input });
}

/**
 * The free-form input back out of function arguments a model wrote for a custom tool: the `input`
 * string when the arguments are the object it was asked for, else the arguments as they are.
 */
export function unwrapCustomInput(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (typeof v === 'object' && v !== null && typeof (v as { input?: unknown }).input === 'string')
      return (v as { input: string }).input;
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return args;
}
