// Masks anything that looks like a credential before text leaves the gateway (errors, logs).
import { maskKey } from '../auth/key-material.ts';

// `sk-` keys are matched wherever they start: a key glued to the text before it (`Xsk-…`, `/v1/_sk-…`)
// is still a key. Over-masking a word that happens to end in "sk-" costs nothing in an error message.
const KEYLIKE = /(sk-(?:ant-)?[A-Za-z0-9_-]{12,})|\b([A-Za-z0-9_-]{0,8}(?:key|token)[-_][A-Za-z0-9_-]{16,})/gi;

/** Masks key-shaped substrings (the gateway's own `sk-…` keys among them) with no list of secrets. */
export function maskKeyLike(text: string): string {
  return text.replace(KEYLIKE, (m) => maskKey(m));
}

export class SecretMasker {
  #exact: string[];

  /** `secrets`: the configured provider keys, masked wherever they appear verbatim. */
  constructor(secrets: string[]) {
    this.#exact = secrets.filter((s) => s.length >= 8).sort((a, b) => b.length - a.length);
  }

  mask(text: string): string {
    let out = text;
    for (const s of this.#exact) if (out.includes(s)) out = out.split(s).join(maskKey(s));
    return maskKeyLike(out);
  }
}
