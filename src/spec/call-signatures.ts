// Where the hub keeps what an upstream signs a tool call with (Gemini's thought signatures) for a caller
// whose dialect has no place beside the call to carry it, and finds it again on the caller's next turn.
// Kept per key (the caller's key id) and per upstream model: a signature goes back only to the model
// that wrote it, for the key it wrote it for. Implemented over the gateway's database (store/), so
// every replica finds what another kept.

export interface KeptSignature {
  callId: string;
  signature: string;
}

export interface CallSignatureBook {
  /** Keeps the signatures of calls `model` made for `owner`; never rejects (a failure is logged where it is built). */
  keep(owner: string, model: string, kept: readonly KeptSignature[]): Promise<void>;
  /** The signatures kept for these calls, by call id; empty when none is (or the store cannot answer). */
  find(owner: string, model: string, callIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
}
