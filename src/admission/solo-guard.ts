// Budgets and rate limits held in one gateway's memory are right only while that gateway is the only one
// counting them. Two gateways on one database (an SQLite file, or PostgreSQL from several hosts) without
// `redis:` would each let a key spend its whole budget. Each gateway registers itself in the database and looks for the others at start and on every
// beat: one that counts in its own memory refuses keys with limits while another live gateway would count
// them too, unless it is the earliest of such gateways and none counts in Redis (the others refuse then).
import type { GatewayBeat, Store } from '../store/store.ts';

/** How often a gateway refreshes its row and looks again. */
export const BEAT_MS = 5_000;
/** A row of another host not refreshed for this long is a gateway that is gone. */
const STALE_MS = 6 * BEAT_MS;

export type GatewayRegistry = Required<Pick<Store, 'putGateway' | 'listGateways' | 'removeGateway'>>;

export interface SoloGuardOptions {
  registry: GatewayRegistry;
  self: Omit<GatewayBeat, 'beatAt'>;
  /** Told when the gateway starts or stops refusing keys with limits (the reason, or null). */
  onChange: (conflict: string | null) => void;
  onError: (err: unknown) => void;
}

export class SoloGuard {
  #conflict: string | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** A beat failed (the database busy or gone): said once until one works again. */
  #failing = false;
  readonly #o: SoloGuardOptions;

  constructor(options: SoloGuardOptions) {
    this.#o = options;
  }

  /** Why keys with limits are refused here, or null: read by admission for every such request. */
  get conflict(): string | null {
    return this.#conflict;
  }

  async start(): Promise<void> {
    await this.#beat();
    this.#timer = setInterval(() => {
      this.#beat().then(
        () => {
          this.#failing = false;
        },
        (err: unknown) => {
          if (!this.#failing) this.#o.onError(err);
          this.#failing = true;
        },
      );
    }, BEAT_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    await this.#o.registry.removeGateway(this.#o.self.id).catch(this.#o.onError);
  }

  async #beat(): Promise<void> {
    const { registry, self } = this.#o;
    const now = Date.now();
    await registry.putGateway({ ...self, beatAt: now });
    const others = (await registry.listGateways()).filter((g) => g.id !== self.id && alive(g, self.host, now));
    const conflict = self.shared ? null : conflictWith(self, others);
    if (conflict !== this.#conflict) {
      this.#conflict = conflict;
      this.#o.onChange(conflict);
    }
  }
}

/** On this host a gateway is alive while its process is; elsewhere while it beats. */
function alive(g: GatewayBeat, host: string, now: number): boolean {
  if (g.host !== host) return g.beatAt > now - STALE_MS;
  try {
    process.kill(g.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function conflictWith(self: Omit<GatewayBeat, 'beatAt'>, others: GatewayBeat[]): string | null {
  const earlier = (g: GatewayBeat): boolean =>
    g.startedAt < self.startedAt || (g.startedAt === self.startedAt && g.id < self.id);
  const rival = others.find((g) => g.shared || earlier(g));
  if (rival === undefined) return null;
  return `Another gateway (${rival.host}, pid ${rival.pid}) serves the same database, and this one counts budgets and rate limits in its own memory: each would let a key spend its whole budget, so this gateway refuses keys with limits. Set \`redis:\` (the same Redis) on every gateway that shares the database, or give each gateway its own database.`;
}
