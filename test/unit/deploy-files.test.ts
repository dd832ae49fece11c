// The deploy files (issue 37). This machine cannot pull base images, so what can be checked here is:
// the compose file and the Kubernetes manifests parse and name the image, PostgreSQL, Redis, the probes
// and the secrets consistently; the shared config is a valid configuration; and the image's entry command
// starts Node exactly as `npm start` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { parseConfigText } from '../../src/config/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  version: string;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

// The parts of the parsed files the checks read (the YAML is trusted to have them: a missing one fails).
interface ComposeService {
  image: string;
  deploy?: { replicas: number };
  depends_on?: Record<string, unknown>;
  environment: Record<string, string>;
  volumes?: string[];
  healthcheck?: unknown;
  stop_grace_period?: string;
}
interface Compose {
  services: Record<string, ComposeService>;
}
interface Probe {
  httpGet: { path: string; port: string };
}
interface Container {
  image: string;
  args: string[];
  ports: unknown;
  readinessProbe: Probe;
  livenessProbe: Probe;
  lifecycle: { preStop: { exec: { command: string[] } } };
  envFrom: Array<{ secretRef: { name: string } }>;
  env: Array<{ name: string; value: string }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
}
interface PodSpec {
  containers: Container[];
  volumes: Array<{ name: string; configMap?: { name: string } }>;
  securityContext: { runAsNonRoot: boolean };
  terminationGracePeriodSeconds: number;
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec: {
    replicas: number;
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    selector: Record<string, string>;
    ports: Array<{ targetPort: string }>;
  };
  stringData: Record<string, string>;
}
interface Kustomization {
  resources: string[];
  images: unknown;
  configMapGenerator: Array<{ name: string; files: string[] }>;
}

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function dockerfile(): Array<{ op: string; args: string }> {
  const joined = read('Dockerfile')
    .split('\n')
    .filter((l) => !l.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [op, ...rest] = l.trim().split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

/** `${NAME}` references in the shared config that have no default: the deployment must provide them. */
const REQUIRED_VARS = [...read('deploy/modelgate.yaml').matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)].map((m) => m[1]);

test('Dockerfile: multi-stage on Node 24 slim (the version package.json pins), non-root, HEALTHCHECK on /healthz', () => {
  const ins = dockerfile();
  const froms = ins.filter((i) => i.op === 'FROM');
  assert.ok(froms.length >= 2, 'multi-stage');
  for (const f of froms) assert.match(f.args, /^node:\$\{NODE_VERSION\}-slim/);
  const arg = ins.find((i) => i.op === 'ARG' && i.args.startsWith('NODE_VERSION='));
  assert.equal(arg?.args, `NODE_VERSION=${pkg.devDependencies.node}`);
  assert.ok(pkg.devDependencies.node.startsWith('24.'));
  const user = ins.filter((i) => i.op === 'USER').at(-1);
  assert.ok(user !== undefined && !['root', '0'].includes(user.args), 'runs as a non-root user');
  const health = ins.find((i) => i.op === 'HEALTHCHECK');
  assert.match(health?.args ?? '', /http:\/\/127\.0\.0\.1:8080\/healthz/);
  const cmd = JSON.parse(ins.find((i) => i.op === 'CMD')!.args) as string[];
  assert.equal(cmd[cmd.indexOf('--port') + 1], '8080', 'the health check probes the port the gateway listens on');
  assert.ok(
    ins.some((i) => i.op === 'COPY' && i.args.startsWith('--from=')),
    'the final stage copies from the build stage',
  );
});

test("the image's entry command starts Node with the flags and MALLOC_ARENA_MAX of `npm start`, then serves", () => {
  const ins = dockerfile();
  const entry = JSON.parse(ins.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
  const cmd = JSON.parse(ins.find((i) => i.op === 'CMD')!.args) as string[];
  assert.deepEqual(entry, ['/app/bin/modelgate.js']);
  assert.equal(cmd[0], 'serve');
  // A `node` that prints what it was given, first on the PATH; the image's /app is this checkout.
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-image-'));
  try {
    writeFileSync(join(dir, 'node'), '#!/bin/sh\necho "$MALLOC_ARENA_MAX $*"\n', { mode: 0o755 });
    const { MALLOC_ARENA_MAX: _unset, ...env } = process.env;
    const withNode = { ...env, PATH: `${dir}:${env.PATH ?? ''}` };
    const bin = entry[0].replace(/^\/app/, ROOT);
    const image = execFileSync(bin, cmd, { env: withNode, encoding: 'utf8' }).trim().split(' ');
    const npmStart = execFileSync('sh', ['-c', pkg.scripts.start], { cwd: ROOT, env: withNode, encoding: 'utf8' })
      .trim()
      .split(' ');
    // `<arena> <node flags…> <script> serve [options]`: the same arena setting and flags; the script is the
    // modelgate command, which runs src/main.ts as npm start does.
    const flagsOf = (words: string[]): string[] =>
      words.slice(
        0,
        words.findIndex((w) => !w.startsWith('-') && w !== words[0]),
      );
    assert.deepEqual(flagsOf(image), flagsOf(npmStart));
    assert.equal(image[flagsOf(image).length], bin);
    assert.equal(npmStart[flagsOf(npmStart).length], 'src/main.ts');
    assert.match(read('bin/modelgate.js'), /^await import\('\.\.\/src\/main\.ts'\);$/m);
    assert.deepEqual(image.slice(flagsOf(image).length + 1), cmd);
    assert.equal(npmStart.at(-1), 'serve');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('docker-compose.yaml: two gateway replicas of the image sharing PostgreSQL and Redis, config mounted, secrets from the environment', () => {
  const compose = parse(read('docker-compose.yaml')) as Compose;
  const gw = compose.services.gateway;
  assert.equal(gw.image, `modelgate:${pkg.version}`);
  assert.ok((gw.deploy?.replicas ?? 1) >= 2);
  assert.match(compose.services.postgres.image, /^postgres:\d+/);
  assert.match(compose.services.redis.image, /^redis:\d+/);
  assert.ok(compose.services.postgres.healthcheck && compose.services.redis.healthcheck);
  assert.deepEqual(Object.keys(gw.depends_on ?? {}).sort(), ['postgres', 'redis']);
  const env = gw.environment;
  assert.match(env.DATABASE_URL, /^postgres:\/\/[^@]+@postgres:5432\//);
  assert.equal(env.REDIS_URL, 'redis://redis:6379');
  for (const name of REQUIRED_VARS) assert.ok(name in env, `compose provides ${name}`);
  // Docker's stop waits past the gateway's grace (a stream may run that long) and the flush.
  const stopGraceS = Number(/^(\d+)s$/.exec(gw.stop_grace_period ?? '')?.[1]);
  assert.ok(stopGraceS >= Number(env.MODELGATE_SHUTDOWN_GRACE_S) + 5, gw.stop_grace_period);
  for (const secret of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'MODELGATE_ADMIN_TOKEN', 'MODELGATE_METRICS_TOKEN']) {
    assert.match(
      env[secret],
      new RegExp(`^\\$\\{${secret}[:?}-]`),
      `${secret} comes from the environment, never written here`,
    );
  }
  assert.ok((gw.volumes ?? []).includes('./deploy/modelgate.yaml:/etc/modelgate/modelgate.yaml:ro'));
});

test('deploy/modelgate.yaml is a valid configuration for PostgreSQL and Redis once its variables are set', () => {
  const env = Object.fromEntries(
    REQUIRED_VARS.map((n) => [
      n,
      n === 'DATABASE_URL' ? 'postgres://u:p@db:5432/modelgate' : n === 'REDIS_URL' ? 'redis://r:6379' : 'x',
    ]),
  );
  const config = parseConfigText(read('deploy/modelgate.yaml'), { source: 'deploy/modelgate.yaml', env });
  assert.equal(config.database, env.DATABASE_URL);
  assert.equal(config.redisUrl, env.REDIS_URL);
  assert.equal(config.listen.host, '0.0.0.0');
  assert.equal(config.listen.port, 8080);
});

test('Kubernetes: Deployment with probes on /readyz and /livez, Secret, Service and the config ConfigMap agree with each other and the image', () => {
  const kustomization = parse(read('deploy/kustomization.yaml')) as Kustomization;
  const docs = kustomization.resources.flatMap((f) => {
    assert.ok(existsSync(join(ROOT, 'deploy', f)), f);
    return parseAllDocuments(read(join('deploy', f))).map((d) => d.toJS() as Manifest);
  });
  const byKind = (kind: string): Manifest => {
    const found = docs.find((d) => d.kind === kind);
    assert.ok(found, kind);
    return found;
  };
  const deployment = byKind('Deployment');
  const secret = byKind('Secret');
  const service = byKind('Service');
  assert.ok(deployment.spec.replicas >= 2);
  const pod = deployment.spec.template.spec;
  const [c] = pod.containers;
  // The image, by the name kustomize's `images` maps to this version.
  assert.equal(c.image, 'modelgate');
  assert.deepEqual(kustomization.images, [{ name: 'modelgate', newName: 'modelgate', newTag: pkg.version }]);
  const cmd = JSON.parse(dockerfile().find((i) => i.op === 'CMD')!.args) as string[];
  assert.deepEqual(c.args, cmd);
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  assert.equal(c.livenessProbe.httpGet.path, '/livez');
  for (const probe of [c.readinessProbe, c.livenessProbe]) assert.equal(probe.httpGet.port, 'http');
  // A rollout cuts no stream: the preStop sleeps the drain delay, and the pod's grace covers it, the
  // gateway's own grace and the flush.
  const setting = (name: string): number => Number(c.env.find((e) => e.name === name)?.value);
  const drainS = setting('MODELGATE_DRAIN_DELAY_S');
  const graceS = setting('MODELGATE_SHUTDOWN_GRACE_S');
  assert.deepEqual(c.lifecycle.preStop.exec.command, ['sleep', String(drainS)]);
  assert.ok(graceS >= 600, 'a grace an agent stream fits in');
  assert.ok(pod.terminationGracePeriodSeconds >= drainS + graceS + 5, String(pod.terminationGracePeriodSeconds));
  assert.deepEqual(c.ports, [{ name: 'http', containerPort: 8080 }]);
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory);
  assert.ok(pod.securityContext.runAsNonRoot);
  // Secrets: every variable the config needs, PostgreSQL and Redis among them, and the admin token.
  assert.equal(c.envFrom[0].secretRef.name, secret.metadata.name);
  for (const name of [...REQUIRED_VARS, 'MODELGATE_ADMIN_TOKEN'])
    assert.ok(name in secret.stringData, `the Secret holds ${name}`);
  assert.match(secret.stringData.DATABASE_URL, /^postgres:\/\//);
  assert.match(secret.stringData.REDIS_URL, /^redis:\/\//);
  // The config: generated from deploy/modelgate.yaml, mounted where MODELGATE_CONFIG points.
  const generated = kustomization.configMapGenerator[0];
  assert.deepEqual(generated.files, ['modelgate.yaml']);
  const volume = pod.volumes.find((v) => v.configMap !== undefined)!;
  assert.equal(volume.configMap?.name, generated.name);
  const mount = c.volumeMounts.find((m) => m.name === volume.name)!;
  const configEnv = c.env.find((e) => e.name === 'MODELGATE_CONFIG')!;
  assert.equal(configEnv.value, `${mount.mountPath}/modelgate.yaml`);
  // The Service reaches these pods on their named port.
  assert.deepEqual(service.spec.selector, deployment.spec.template.metadata.labels);
  assert.equal(service.spec.ports[0].targetPort, 'http');
});
