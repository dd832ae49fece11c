// Provider credentials stored in the database are sealed with AES-256-GCM under MODELGATE_ENCRYPTION_KEY
// (32 bytes, base64): the database and its backups hold no usable secret. A credential is any string under
// a key named like one (`api_key`, `api_keys`, `aws_secret_access_key`, `client_secret`) or a header named
// like one (`authorization`, `x-api-key`); a `${NAME}` reference names a variable, holds no secret, and is
// stored as written. Replies show credentials masked (first 4 + last 4), never sealed or whole.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { maskKey } from '../core/mask-secrets.ts';
import { ConfigError } from './load.ts';

export const ENCRYPTION_KEY_VARIABLE = 'MODELGATE_ENCRYPTION_KEY';

/** What a sealed value starts with: the format's version, so another cipher can come later beside it. */
const SEALED = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const CREDENTIAL_KEY = /key|secret|token|password/i;
const CREDENTIAL_HEADER = /key|token|auth|secret|password|signature|cookie/i;
const REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** The key from the environment; null when unset; a value that is not 32 bytes of base64 stops the start. */
export function encryptionKey(env: NodeJS.ProcessEnv): Buffer | null {
  const text = env[ENCRYPTION_KEY_VARIABLE];
  if (text === undefined || text === '') return null;
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text.trim()))
    throw new ConfigError(
      `${ENCRYPTION_KEY_VARIABLE} must be 32 bytes in base64 (44 characters; make one with \`openssl rand -base64 32\`), got ${key.length} bytes`,
    );
  return key;
}

type Entry = Record<string, unknown>;

/**
 * A copy of the entry with each credential leaf replaced by `map(value, where)`; `where` names the leaf
 * (`api_keys[1]`, `headers.authorization`), so a sealed value is bound to its place.
 */
function mapCredentials(entry: Entry, map: (value: string, where: string) => string): Entry {
  const walk = (value: unknown, where: string, credential: boolean, inHeaders: boolean): unknown => {
    if (typeof value === 'string') return credential && !REFERENCE.test(value) ? map(value, where) : value;
    if (Array.isArray(value)) return value.map((v, i) => walk(v, `${where}[${i}]`, credential, false));
    if (value !== null && typeof value === 'object') {
      const out: Entry = {};
      for (const [k, v] of Object.entries(value)) {
        const named = inHeaders ? CREDENTIAL_HEADER.test(k) : CREDENTIAL_KEY.test(k);
        out[k] = walk(v, where === '' ? k : `${where}.${k}`, credential || named, where === '' && k === 'headers');
      }
      return out;
    }
    return value;
  };
  return walk(entry, '', false, false) as Entry;
}

/** Whether the entry holds a credential that would be stored (a reference does not count). */
export function hasCredentials(entry: Entry): boolean {
  let found = false;
  mapCredentials(entry, (v) => {
    found = true;
    return v;
  });
  return found;
}

/** The entry as stored: credentials sealed; without a key, an entry that holds one is refused. */
export function sealCredentials(entry: Entry, key: Buffer | null, owner: string): Entry {
  return mapCredentials(entry, (value, where) => {
    if (value.startsWith(SEALED)) return value;
    if (key === null)
      throw new ConfigError(
        `${owner}: ${where} is a credential, and credentials are stored in the database only encrypted: set ${ENCRYPTION_KEY_VARIABLE} (32 bytes, base64) on every gateway, or give a \${VARIABLE} reference instead`,
      );
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`${owner}:${where}`));
    const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  });
}

/** The entry as the gateway uses it: credentials opened. A wrong or missing key says so, naming the entry. */
export function openCredentials(entry: Entry, key: Buffer | null, owner: string): Entry {
  return mapCredentials(entry, (value, where) => {
    if (!value.startsWith(SEALED)) return value;
    if (key === null)
      throw new ConfigError(
        `${owner}: ${where} is stored encrypted and ${ENCRYPTION_KEY_VARIABLE} is not set: set the key it was stored with`,
      );
    try {
      const raw = Buffer.from(value.slice(SEALED.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(`${owner}:${where}`));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new ConfigError(
        `${owner}: ${where} cannot be decrypted with this ${ENCRYPTION_KEY_VARIABLE}: it was stored with another key`,
      );
    }
  });
}

/** The entry as a reply shows it: each credential masked to its first 4 and last 4 characters. */
export function maskCredentials(entry: Entry): Entry {
  return mapCredentials(entry, (value) => maskKey(value));
}

/**
 * A PATCH that sends back a credential as a reply showed it (masked) keeps the stored one: a client that
 * reads an entry, changes one field and writes it back does not overwrite the key with its mask.
 */
export function keepMaskedCredentials(next: Entry, current: Entry): Entry {
  const masks = new Map<string, string>();
  mapCredentials(current, (value, where) => {
    masks.set(where, value);
    return value;
  });
  return mapCredentials(next, (value, where) => {
    const stored = masks.get(where);
    return stored !== undefined && value === maskKey(stored) && value !== stored ? stored : value;
  });
}
