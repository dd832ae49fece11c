// A cloud's model id → the gateway model it names. Claude Code in its Bedrock mode rewrites first-party
// names into Bedrock ids (`claude-sonnet-4-6` → `us.anthropic.claude-sonnet-4-6`, dated ones gain
// `-v1:0`), and Vertex's ids may carry a version after `@`. The id is looked up as it is first (an
// operator may name models or aliases by their cloud ids); then, one step at a time, without an inference
// profile's ARN, its region prefix (`us.`, `eu.`, `apac.`, `global.`), `anthropic.`, and a `-v1:0`-style
// suffix (Bedrock) or `@version` (Vertex). The first name the gateway knows wins; none: the id as sent,
// so the 404 names what the caller asked for.

const REGION_PREFIX = /^(?:[a-z]{2,6}(?:-[a-z]+)?)\.(?=anthropic\.)/;
const VERSION_SUFFIX = /-v\d+(?::\d+)?$/;

/** The names to try for a cloud model id, most specific first. */
export function cloudModelCandidates(id: string): string[] {
  const out = [id];
  let name = id;
  const slash = name.lastIndexOf('/');
  if (name.startsWith('arn:') && slash !== -1) out.push((name = name.slice(slash + 1)));
  if (REGION_PREFIX.test(name)) out.push((name = name.replace(REGION_PREFIX, '')));
  if (name.startsWith('anthropic.')) out.push((name = name.slice('anthropic.'.length)));
  if (VERSION_SUFFIX.test(name)) out.push((name = name.replace(VERSION_SUFFIX, '')));
  const at = name.indexOf('@');
  if (at > 0) out.push(name.slice(0, at));
  return out;
}

/** The gateway's name for a cloud model id: the first candidate `known` accepts, else the id itself. */
export function gatewayModelOf(id: string, known: (name: string) => boolean): string {
  for (const name of cloudModelCandidates(id)) if (known(name)) return name;
  return id;
}
