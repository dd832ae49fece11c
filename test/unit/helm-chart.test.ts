// The Helm chart (deploy/helm/modelgate): `helm lint`, then `helm template` rendered with the values an
// install gives, every object validated against the Kubernetes JSON schemas (kubernetes-models), and the
// rendered pieces agreeing with each other and with the gateway: probes on /readyz and /livez, the preStop
// and termination grace in step with the stop settings, a migration hook running `modelgate migrate`, and
// configs the gateway accepts. Helm comes from an npm package (test/helpers/helm.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { helmBinary } from '../helpers/helm.ts';
import { parseConfigText } from '../../src/config/load.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CHART = join(ROOT, 'deploy/helm/modelgate');
const INSTALL = ['--set', 'database.url=postgres://u:p@db:5432/modelgate', '--set', 'redis.url=redis://redis:6379'];

const helm = helmBinary();
const skip = helm === null && process.env.CI !== 'true' ? 'helm runs on linux x64 only (from an npm package)' : false;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

function run(args: string[]): { code: number | null; stdout: string; stderr: string } {
  assert.ok(helm !== null, 'helm is available (CI runs on linux x64 with the devDependencies)');
  const r = spawnSync(helm, args, { encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: '/tmp/mg-helm-cache' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function render(extra: string[] = []): K8sObject[] {
  const r = run(['template', 'rel', CHART, ...INSTALL, ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((d): d is K8sObject => d !== null);
}

/** kubernetes-models' class for the object's apiVersion and kind, which validates against the JSON schema. */
async function validate(obj: K8sObject): Promise<void> {
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : [null, obj.apiVersion];
  const path =
    group === null ? `kubernetes-models/${version}/${obj.kind}` : `kubernetes-models/${group}/${version}/${obj.kind}`;
  const mod = (await import(path)) as Record<string, new (o: unknown) => { validate(): void }>;
  const Model = mod[obj.kind];
  assert.ok(Model, `a schema for ${obj.apiVersion} ${obj.kind}`);
  assert.doesNotThrow(() => new Model(obj).validate(), `${obj.kind} ${obj.metadata.name} is valid`);
}

const env = (name: string, obj: K8sObject): string =>
  obj.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === name)?.value;

test('helm lint passes', { skip }, () => {
  const r = run(['lint', CHART, ...INSTALL]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
});

test('helm template: every object is valid against the Kubernetes schemas, and the schema check catches a bad one', {
  skip,
}, async () => {
  const objects = render();
  assert.deepEqual(objects.map((o) => o.kind).sort(), [
    'ConfigMap',
    'ConfigMap',
    'Deployment',
    'Job',
    'Secret',
    'Secret',
    'Service',
  ]);
  for (const o of objects) await validate(o);
  const broken = objects.find((o) => o.kind === 'Deployment')!;
  broken.spec.replicas = 'two';
  await assert.rejects(validate(broken), /replicas must be integer/);
});

test('helm template: probes, preStop and grace in step with the stop settings; image, replicas, secrets', {
  skip,
}, () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const [grace, drain] of [
    [600, 5],
    [90, 0],
  ]) {
    const objects = render([
      '--set',
      `shutdown.graceSeconds=${grace}`,
      '--set',
      `shutdown.drainDelaySeconds=${drain}`,
      '--set',
      'replicaCount=3',
    ]);
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    const pod = deployment.spec.template.spec;
    const [c] = pod.containers;
    assert.equal(deployment.spec.replicas, 3);
    assert.equal(c.image, `modelgate:${pkg.version}`);
    assert.equal(c.readinessProbe.httpGet.path, '/readyz');
    assert.equal(c.livenessProbe.httpGet.path, '/livez');
    assert.equal(env('MODELGATE_SHUTDOWN_GRACE_S', deployment), String(grace));
    assert.equal(env('MODELGATE_DRAIN_DELAY_S', deployment), String(drain));
    assert.deepEqual(c.lifecycle.preStop.exec.command, ['sleep', String(drain)]);
    assert.equal(pod.terminationGracePeriodSeconds, grace + drain + 15);
    const secret = objects.find((o) => o.kind === 'Secret' && !o.metadata.annotations)!;
    assert.equal(c.envFrom[0].secretRef.name, secret.metadata.name);
    assert.equal(secret.stringData?.DATABASE_URL, 'postgres://u:p@db:5432/modelgate');
    assert.equal(secret.stringData?.REDIS_URL, 'redis://redis:6379');
  }
});

test('the configs the chart renders are ones the gateway accepts; the default is deploy/modelgate.yaml', {
  skip,
}, () => {
  const objects = render();
  const vars = {
    DATABASE_URL: 'postgres://u:p@db:5432/modelgate',
    REDIS_URL: 'redis://r:6379',
    OPENAI_API_KEY: 'k',
    ANTHROPIC_API_KEY: 'k',
  };
  const main = objects.find((o) => o.kind === 'ConfigMap' && !o.metadata.annotations)!;
  const config = parseConfigText(main.data!['modelgate.yaml'], { source: 'chart', env: vars });
  assert.equal(config.database, vars.DATABASE_URL);
  assert.equal(config.redisUrl, vars.REDIS_URL);
  assert.deepEqual(
    parse(main.data!['modelgate.yaml']),
    parse(readFileSync(join(ROOT, 'deploy/modelgate.yaml'), 'utf8')),
    'the same configuration as the compose file and the manifests',
  );
  const job = objects.find((o) => o.kind === 'Job')!;
  const jobConfig = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.annotations)!;
  assert.equal(
    parseConfigText(jobConfig.data!['modelgate.yaml'], { source: 'job', env: vars }).database,
    vars.DATABASE_URL,
  );
  const volume = job.spec.template.spec.volumes.find((v: { configMap?: { name: string } }) => v.configMap)!;
  assert.equal(volume.configMap.name, jobConfig.metadata.name);
});

test('the migration job: a pre-install and pre-upgrade hook running `modelgate migrate`, after its config and secret', {
  skip,
}, () => {
  const objects = render();
  const hooks = objects.filter((o) => o.metadata.annotations?.['helm.sh/hook'] !== undefined);
  assert.deepEqual(hooks.map((o) => o.kind).sort(), ['ConfigMap', 'Job', 'Secret']);
  const job = hooks.find((o) => o.kind === 'Job')!;
  for (const h of hooks) assert.equal(h.metadata.annotations!['helm.sh/hook'], 'pre-install,pre-upgrade');
  for (const h of hooks.filter((o) => o !== job))
    assert.ok(
      Number(h.metadata.annotations!['helm.sh/hook-weight']) < Number(job.metadata.annotations!['helm.sh/hook-weight']),
    );
  const [c] = job.spec.template.spec.containers;
  assert.deepEqual(c.args, ['migrate']);
  assert.equal(job.spec.template.spec.restartPolicy, 'Never');
  const secret = hooks.find((o) => o.kind === 'Secret')!;
  assert.equal(
    c.env.find((e: { name: string }) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef.name,
    secret.metadata.name,
  );
  assert.equal(render(['--set', 'migration.enabled=false']).filter((o) => o.kind === 'Job').length, 0);
});

test('existingSecret: the chart makes no Secret and every pod reads the named one; without it the URLs are required', {
  skip,
}, () => {
  const objects = render(['--set', 'existingSecret=mg-prod']);
  assert.equal(objects.filter((o) => o.kind === 'Secret').length, 0);
  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  assert.equal(deployment.spec.template.spec.containers[0].envFrom[0].secretRef.name, 'mg-prod');
  const job = objects.find((o) => o.kind === 'Job')!;
  const ref = job.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'DATABASE_URL');
  assert.equal(ref.valueFrom.secretKeyRef.name, 'mg-prod');
  const missing = run(['template', 'rel', CHART]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /database\.url \(or existingSecret\) is required/);
});
