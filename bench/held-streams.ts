// The held-streams scenario: N streams held open through each target in one run, over a plain HTTP
// upstream and over an HTTPS one that offers HTTP/2 by ALPN (a local mock with a certificate made here),
// reporting memory and file descriptors a stream and the upstream connections they took.
// `node bench/held-streams.ts [--streams N] [--tls-streams M] [--json]`; N defaults from the file limit.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readFileLimit } from '../src/runtime/file-limit.ts';
import { runHold } from './lib/hold.ts';
import { oneClientSettings, startModelgate } from './lib/modelgate-target.ts';
import { Child, NODE } from './lib/processes.ts';
import type { HoldResult } from './lib/report.ts';
import { type Started, startBareProxy } from './lib/targets.ts';

const BENCH = new URL('.', import.meta.url).pathname;

export interface HeldStreamsRow {
  upstream: 'plain HTTP' | 'HTTPS offering HTTP/2';
  target: string;
  streams: number;
  completed: number;
  failed: number;
  /** (RSS held − RSS idle) / streams. */
  kbPerStream: number;
  descriptorsPerStream: number | null;
  upstreamConnections: number | null;
  probeHoldP99Ms: number;
}

/** Streams the file limit lets a proxy hold over HTTP/1.1: two descriptors each, and room for the rest. */
export function streamsForLimit(limit: number | null, cap: number): number {
  if (limit === null) return cap;
  return Math.max(1, Math.min(cap, Math.floor((limit - 512) / 2)));
}

function row(upstream: HeldStreamsRow['upstream'], target: string, r: HoldResult): HeldStreamsRow {
  const per = (a: number | undefined, b: number | undefined): number | null =>
    a === undefined || b === undefined ? null : (b - a) / r.streams;
  return {
    upstream,
    target,
    streams: r.streams,
    completed: r.completed,
    failed: r.failed,
    kbPerStream: ((r.rssHoldMb - r.rssIdleMb) * 1024) / r.streams,
    descriptorsPerStream: per(r.descriptorsIdle, r.descriptorsHold),
    upstreamConnections: r.upstreamConnections ?? null,
    probeHoldP99Ms: r.probeHoldP99Us / 1000,
  };
}

export async function runHeldStreams(o: { streams: number; tlsStreams: number }): Promise<HeldStreamsRow[]> {
  const workDir = mkdtempSync(join(tmpdir(), 'modelgate-held-'));
  const tlsDir = join(workDir, 'tls');
  mkdirSync(tlsDir);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
      .concat(['-keyout', join(tlsDir, 'key.pem'), '-out', join(tlsDir, 'cert.pem'), '-days', '1'])
      .concat(['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']),
    { stdio: 'ignore' },
  );
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: join(tlsDir, 'cert.pem') };
  const mock = new Child({
    name: 'mock-upstream',
    command: NODE,
    args: [join(BENCH, 'mock-upstream.ts'), '--port=0', '--chunks=50', '--chunk-size=6', `--tls-dir=${tlsDir}`],
  });
  const rows: HeldStreamsRow[] = [];
  try {
    const { port, tlsPort } = await mock.jsonLine<{ port: number; tlsPort: number }>('tlsPort', 10_000);
    const mockUrl = `http://127.0.0.1:${port}`;
    const https = `https://localhost:${tlsPort}`;
    let n = 0;
    const dir = (): string => {
      const d = join(workDir, `target-${n++}`);
      mkdirSync(d);
      return d;
    };
    // Every stream and probe comes from this one address, all opened at once.
    const oneClient = oneClientSettings(Math.max(o.streams, o.tlsStreams));
    const scenarios: [HeldStreamsRow['upstream'], string, number, () => Promise<Started>][] = [
      [
        'plain HTTP',
        'modelgate',
        o.streams,
        () => startModelgate({ mockPort: port, workDir: dir(), settings: oneClient }),
      ],
      ['plain HTTP', 'bare-proxy', o.streams, () => startBareProxy(port)],
      [
        'HTTPS offering HTTP/2',
        'modelgate',
        o.tlsStreams,
        () => startModelgate({ mockPort: port, workDir: dir(), mockOrigin: https, env, settings: oneClient }),
      ],
      [
        'HTTPS offering HTTP/2',
        'bare-proxy (HTTP/1.1)',
        o.tlsStreams,
        () => startBareProxy(port, { upstream: https, env }),
      ],
      [
        'HTTPS offering HTTP/2',
        'bare-proxy (HTTP/2)',
        o.tlsStreams,
        () => startBareProxy(port, { upstream: https, h2: true, env }),
      ],
    ];
    for (const [upstream, name, streams, start] of scenarios) {
      const started = await start();
      if (!started.ok) throw new Error(`${name} over ${upstream}: ${started.reason}`);
      try {
        const result = await runHold({
          target: started.target,
          phase: 'fresh process',
          streams,
          probeCount: 200,
          mockUrl,
          readyTimeoutMs: 60_000,
        });
        rows.push(row(upstream, name, result));
      } finally {
        await started.target.child.stop();
      }
    }
  } finally {
    await mock.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  return rows;
}

function table(rows: readonly HeldStreamsRow[]): string {
  const head =
    '| upstream | target | streams held | memory a stream | descriptors a stream | upstream connections | small request p99 |\n|---|---|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    (r) =>
      `| ${r.upstream} | ${r.target} | ${r.completed}/${r.streams} | ${r.kbPerStream.toFixed(1)} KB | ${r.descriptorsPerStream?.toFixed(2) ?? '–'} | ${r.upstreamConnections ?? '–'} | ${r.probeHoldP99Ms.toFixed(1)} ms |`,
  );
  return [head, ...lines].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { streams: { type: 'string' }, 'tls-streams': { type: 'string' }, json: { type: 'boolean' } },
  });
  const limit = readFileLimit()?.soft ?? null;
  const streams = values.streams === undefined ? streamsForLimit(limit, 9_000) : Number(values.streams);
  const tlsStreams = values['tls-streams'] === undefined ? Math.min(3_000, streams) : Number(values['tls-streams']);
  const rows = await runHeldStreams({ streams, tlsStreams });
  process.stdout.write(values.json === true ? `${JSON.stringify(rows)}\n` : `${table(rows)}\n`);
}
