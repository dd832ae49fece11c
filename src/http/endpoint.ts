// The endpoint table's contract: each API endpoint is one entry — method(s), path template, dialect,
// operation name and its handler — and the router finds an entry and its typed path parameters for a
// path. The table itself is the pipeline's (pipeline/endpoint-table.ts): the server routes by it and
// names metrics, logs and traces by its templates, and knows no endpoint by name.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../core/dialect.ts';

/** The `{name}` parameters of a path template as an object type: `/v1/responses/{id}` → `{ id: string }`. */
export type PathParams<T extends string> = T extends `${string}{${infer K}}${infer Rest}`
  ? { readonly [P in K]: string } & PathParams<Rest>
  : unknown;

/** The server's own routes: answered without a key, never shed, never handed to the pipeline. */
export type OwnRoute = 'root' | 'healthz' | 'livez' | 'readyz' | 'metrics';

export interface Endpoint<P = unknown> {
  /** The operation's name, as logs and tests name it (`chat`, `response_input_items`). */
  readonly name: string;
  /** The path as traces and metrics name it (OpenTelemetry's http.route): parameters in braces. */
  readonly template: string;
  /** The methods it answers, the first being the one a 405 points to; GET implies HEAD. */
  readonly methods: readonly [string, ...string[]];
  /** The dialect its answers and errors are written in. */
  readonly dialect: Dialect;
  /** A GET shared by the OpenAI and Anthropic SDKs: a caller sending `anthropic-version` is answered in kind. */
  readonly anthropicCallers?: true;
  /** One of the server's own routes (server.ts answers it); `serve` is then never called. */
  readonly own?: OwnRoute;
  /**
   * The path's parameters, or null when the path is not this endpoint's: for paths a template cannot
   * say (Gemini's `models/{model}:{method}`, where a model id may hold a colon). Without it, the template
   * matches with one non-empty segment a parameter, percent-decoded.
   */
  readonly match?: (path: string) => P | null;
  /** Tried only for paths that may be this endpoint's (a cheap prefix test in front of `match`). */
  readonly maybe?: (path: string) => boolean;
  /** Another endpoint that answers instead when `when` holds (Gemini's listing for a Gemini caller of /v1/models). */
  readonly variant?: { when(req: IncomingMessage): boolean; endpoint: Endpoint<any>; params(path: string): unknown };
  readonly serve: (req: IncomingMessage, res: ServerResponse, match: RouteMatch<P>, requestId: string) => Promise<void>;
}

/** An entry with parameters typed by its template, for the table's literal entries. */
export function endpoint<const T extends string>(
  e: Omit<Endpoint<PathParams<T>>, 'template' | 'match'> & { template: T },
): Endpoint<PathParams<T>> {
  return e;
}

/** An endpoint found for a path, with the path's parameters. */
export interface RouteMatch<P = any> {
  readonly endpoint: Endpoint<P>;
  readonly params: P;
}

const NO_PARAMS: unknown = Object.freeze({});

interface Compiled {
  endpoint: Endpoint<any>;
  /** Literal path pieces between parameters: `/v1/responses/{id}/input_items` → ['/v1/responses/', '/input_items']. */
  pieces: string[];
  names: string[];
}

/** Exact paths by a Map lookup; parameterised ones in table order, the first that matches wins. */
export class Router {
  readonly #exact = new Map<string, RouteMatch>();
  readonly #templated: Compiled[] = [];
  readonly #custom: Endpoint<any>[] = [];
  readonly endpoints: readonly Endpoint<any>[];

  constructor(endpoints: readonly Endpoint<any>[]) {
    this.endpoints = endpoints;
    for (const e of endpoints) {
      if (e.match !== undefined) this.#custom.push(e);
      else if (!e.template.includes('{')) this.#exact.set(e.template, { endpoint: e, params: NO_PARAMS });
      else this.#templated.push(compile(e));
    }
  }

  find(path: string): RouteMatch | undefined {
    const exact = this.#exact.get(path);
    if (exact !== undefined) return exact;
    for (const c of this.#templated) {
      const params = matchPieces(c, path);
      if (params !== null) return { endpoint: c.endpoint, params };
    }
    for (const e of this.#custom) {
      if (e.maybe !== undefined && !e.maybe(path)) continue;
      const params = e.match!(path);
      if (params !== null) return { endpoint: e, params };
    }
    return undefined;
  }

  /** The endpoint of this name (tests, and the variants that point at another entry). */
  named(name: string): Endpoint<any> | undefined {
    return this.endpoints.find((e) => e.name === name);
  }
}

function compile(e: Endpoint<any>): Compiled {
  const pieces: string[] = [];
  const names: string[] = [];
  const re = /\{([^}]+)\}/g;
  let last = 0;
  for (let m = re.exec(e.template); m !== null; m = re.exec(e.template)) {
    pieces.push(e.template.slice(last, m.index));
    names.push(m[1]);
    last = m.index + m[0].length;
  }
  pieces.push(e.template.slice(last));
  return { endpoint: e, pieces, names };
}

/** Each parameter one non-empty segment (no `/`), between the template's literal pieces. */
function matchPieces(c: Compiled, path: string): Record<string, string> | null {
  const { pieces, names } = c;
  if (!path.startsWith(pieces[0])) return null;
  let at = pieces[0].length;
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    const next = pieces[i + 1];
    let end: number;
    if (next === '') end = path.length;
    else {
      end = path.indexOf(next, at);
      if (end === -1) return null;
    }
    const segment = path.slice(at, end);
    if (segment === '' || segment.includes('/')) return null;
    params[names[i]] = decodedSegment(segment);
    at = end + next.length;
  }
  return at === path.length ? params : null;
}

/** A percent-decoded segment; one that does not decode stays as sent (it then names nothing stored). */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
