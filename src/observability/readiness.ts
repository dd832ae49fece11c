// Whether this process should get new requests (/readyz), as opposed to whether it is alive (/livez):
// not while it drains for a stop, nor while a store the requests need cannot be reached. A load balancer
// or Kubernetes sends traffic elsewhere meanwhile; nothing restarts the process for it.

/** One dependency the requests need: its name in /readyz's answer, and whether it fails now. */
export interface ReadinessCheck {
  name: string;
  failing(): boolean;
}

export class Readiness {
  /** Set by a stop at the signal: readiness fails from then on, and answers close their connection. */
  draining = false;
  readonly #checks: ReadinessCheck[] = [];

  add(check: ReadinessCheck): void {
    this.#checks.push(check);
  }

  /** Why the process is not ready; empty when it is. Read per probe, never per request. */
  reasons(): string[] {
    const out: string[] = [];
    if (this.draining) out.push('draining');
    for (const c of this.#checks) if (c.failing()) out.push(`${c.name} unreachable`);
    return out;
  }
}
