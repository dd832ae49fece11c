// The bytes all compressed request bodies being decoded at once may hold, across requests:
// a small compressed body inflates a thousandfold, and a hundred at once must not multiply memory.

export class DecodeBudget {
  readonly capacity: number;
  #inUse = 0;

  constructor(capacityBytes: number) {
    this.capacity = capacityBytes;
  }

  get inUse(): number {
    return this.#inUse;
  }

  /** Takes `bytes` for a decoder's output; false (nothing taken) when that would pass the capacity. */
  take(bytes: number): boolean {
    if (this.#inUse + bytes > this.capacity) return false;
    this.#inUse += bytes;
    return true;
  }

  /** Gives back what a decoder took, once its body is whole or has failed. */
  give(bytes: number): void {
    this.#inUse = Math.max(0, this.#inUse - bytes);
  }
}
