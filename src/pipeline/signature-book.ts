// The hub's call-signature book over the gateway's database: a store that cannot answer costs the
// caller's next turn its signatures (the upstream then gets Google's placeholder), never the request, and
// is logged.
import type { CallSignatureBook } from '../spec/call-signatures.ts';
import type { CallSignatureStore } from '../store/call-signature-store.ts';
import type { Logger } from '../observability/logger.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';

export function signatureBook(store: CallSignatureStore, log: Logger, masker: SecretMasker): CallSignatureBook {
  const failed = (what: string) => (err: unknown) => {
    log.warn({ err: masker.mask(String(err)) }, `could not ${what} the thought signatures of tool calls`);
  };
  return {
    keep: (owner, model, kept) => store.keep(owner, model, kept).catch(failed('keep')),
    find: (owner, model, callIds) =>
      store.find(owner, model, callIds).catch((err: unknown) => {
        failed('read')(err);
        return new Map<string, string>();
      }),
  };
}
