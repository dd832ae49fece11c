// The gateway's endpoint table as a lookup for route tests: which endpoint a path reaches, and its
// parameters. The handlers are never called, so no gateway stands behind them.
import { routerFor } from '../../src/pipeline/endpoint-table.ts';
import type { Endpoint } from '../../src/http/endpoint.ts';

const router = routerFor({} as never);

export function findRoute(path: string): (Endpoint<any> & { params: any }) | undefined {
  const m = router.find(path);
  return m === undefined ? undefined : { ...m.endpoint, params: m.params };
}
