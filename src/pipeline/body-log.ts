// Body logging (config `body_log:`): for the chosen keys and teams, the request as it went upstream (after
// the model's stages, so redaction has run first) and the reply as the caller got it are kept with the
// request's usage row. Every detector of the redaction stage masks them again before they are kept, and so
// do the gateway's own credentials, whatever the model's redaction settings: a log is not where a card
// number, a key or an address may rest. Each body is cut to `max_bytes`.
import type { BodyLogConfig } from '../core/config-types.ts';
import type { KeyRecord } from '../core/key-record.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';
import { DETECTOR_NAMES, DETECTORS } from '../stages/redact/detectors.ts';
import { findAll, masked } from '../stages/redact/scan.ts';

const RULES = DETECTOR_NAMES.map((name) => DETECTORS[name]);
const CUT = '…[cut by body_log.max_bytes]';

export class BodyLog {
  readonly #config: BodyLogConfig;
  readonly #masker: SecretMasker;
  readonly #keys: ReadonlySet<string>;
  readonly #teams: ReadonlySet<string>;

  constructor(config: BodyLogConfig, masker: SecretMasker) {
    this.#config = config;
    this.#masker = masker;
    this.#keys = new Set(config.keys);
    this.#teams = new Set(config.teams);
  }

  /** Whether this key's requests keep their bodies: named by id or name, or its team named. */
  wants(key: KeyRecord): boolean {
    return (
      this.#keys.has(key.id) ||
      this.#keys.has(key.name) ||
      (key.team !== null && key.team !== undefined && this.#teams.has(key.team))
    );
  }

  get retentionMs(): number {
    return this.#config.retentionMs;
  }

  /** What a reply's capture collects: the kept size with room for what masking shortens. */
  get captureBytes(): number {
    return this.#config.maxBytes + 4096;
  }

  /** The text as it is kept: masked, then cut to the configured size (never inside a mask). */
  keep(text: string): string {
    const found = findAll(text, RULES);
    const clean = this.#masker.mask(found.length === 0 ? text : masked(text, found));
    if (Buffer.byteLength(clean) <= this.#config.maxBytes) return clean;
    return (
      Buffer.from(clean)
        .subarray(0, this.#config.maxBytes)
        .toString('utf8')
        .replace(/\uFFFD$/, '') + CUT
    );
  }
}

/** A reply being relayed, collected up to a bound (a stream's events as the caller got them). */
export class ReplyCapture {
  readonly #limit: number;
  #parts: Buffer[] = [];
  #bytes = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Copies: a relayed chunk may be a view of a buffer the relay reuses. */
  add(chunk: Uint8Array | string): void {
    if (this.#bytes > this.#limit) return;
    const b = Buffer.from(chunk);
    this.#parts.push(b);
    this.#bytes += b.length;
  }

  text(): string {
    return Buffer.concat(this.#parts).toString('utf8');
  }
}
