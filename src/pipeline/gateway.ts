// Everything a request handler needs, built once at boot (the hot path only reads it).
import type { BodyLog } from './body-log.ts';
import type { GatewayConfig } from '../core/config-types.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { KeyCache } from '../auth/key-cache.ts';
import type { Store } from '../store/store.ts';
import type { ResponseStore } from '../store/response-store.ts';
import type { ConversationStore } from '../store/conversation-store.ts';
import type { UsageWriter } from '../accounting/usage-writer.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Logger } from '../observability/logger.ts';
import type { SecretMasker } from '../core/mask-secrets.ts';
import type { Admission } from '../admission/admission.ts';
import type { CircuitBreaker } from '../routing/circuit-breaker.ts';
import type { KeyRotation } from '../routing/key-rotation.ts';
import type { BodyLimits } from '../http/body.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { StagePlan } from '../stages/plan.ts';
import type { McpService } from '../mcp/endpoint.ts';
import type { CallSignatureBook } from '../spec/call-signatures.ts';

export interface Gateway {
  config: GatewayConfig;
  /** What request bodies are held to (size, progress), from the config. */
  bodyLimits: BodyLimits;
  catalog: Catalog;
  keys: KeyCache;
  store: Store;
  /** Stored Responses API responses (previous_response_id, GET/DELETE /v1/responses/{id}). */
  responses: ResponseStore;
  /** Conversations API (POST /v1/conversations, `conversation` on /v1/responses). */
  conversations: ConversationStore;
  usage: UsageWriter;
  metrics: Metrics;
  log: Logger;
  masker: SecretMasker;
  /** Budgets and rate limits: one admit and one settle per request. */
  admission: Admission;
  /** Deployment health across requests (routing/). */
  breaker: CircuitBreaker;
  /** Provider keys in turn, minus those the upstream refused (routing/). */
  keyRotation: KeyRotation;
  /** OpenTelemetry spans; null when tracing is off (the default), and then nothing of it runs. */
  tracing: Tracing | null;
  /** Which stages run for which model (stages/); null when no model has one, and then nothing of it runs. */
  stages: StagePlan | null;
  /**
   * Where an upstream's tool-call signatures (Gemini's thought signatures) are kept for callers whose
   * dialect cannot carry them, in the gateway's database; absent, they are not kept.
   */
  signatures?: CallSignatureBook;
  /** The MCP servers behind /mcp; null when none are configured (then /mcp lists no tools). */
  mcp: McpService | null;
  /** Body logging (config `body_log:`); absent or null when off, and then nothing of it runs. */
  bodyLog?: BodyLog | null;
}
