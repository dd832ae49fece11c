// modelgate's version, from package.json: what `modelgate --version` prints and traces carry as
// service.version. Read once, when first imported (a start, a CLI command), never per request.
import { readFileSync } from 'node:fs';

export const MODELGATE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
