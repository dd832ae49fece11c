// Runs the admission store contract against the in-process memory store.
import { MemoryAdmissionStore } from '../../src/admission/memory-store.ts';
import { storeContract } from './store-contract.ts';

storeContract('memory', async ({ count, reservationTtlMs }) => {
  const store = new MemoryAdmissionStore({ reservationTtlMs });
  return { stores: Array.from({ length: count }, () => store), cleanup: () => store.close() };
});
