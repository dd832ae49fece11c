// Everything a request handler needs, built once at boot (the hot path only reads it).
import type { GatewayConfig } from '../core/config-types.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { KeyCache } from '../auth/key-cache.ts';
import type { Store } from '../store/store.ts';
import type { UsageWriter } from '../accounting/usage-writer.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Logger } from '../observability/logger.ts';
import type { SecretMasker } from '../observability/mask-secrets.ts';

export interface Gateway {
  config: GatewayConfig;
  catalog: Catalog;
  keys: KeyCache;
  store: Store;
  usage: UsageWriter;
  metrics: Metrics;
  log: Logger;
  masker: SecretMasker;
}
