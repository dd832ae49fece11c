// Tracing off (the default) costs nothing: the gateway's modules load none of the OpenTelemetry SDK, and
// startTracing() answers null without importing it; with an OTLP endpoint set it loads it. The API package
// alone is loaded either way: prom-client's default CPU metric reads the active span from it (exemplars).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { tracingWanted } from '../../src/observability/tracing.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The @opentelemetry packages a fresh Node resolves while loading the serve command and starting tracing under `env`. */
function otelModulesLoaded(env: Record<string, string>): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ resolve(specifier, context, next) { if (specifier.startsWith('@opentelemetry/')) seen.add(specifier); return next(specifier, context); } });
    await import('./src/admin/serve-command.ts');
    const { startTracing } = await import('./src/observability/tracing.ts');
    const { createLogger } = await import('./src/observability/logger.ts');
    const tracing = await startTracing(process.env, createLogger({ level: 'silent' }));
    await tracing?.shutdown();
    console.log(JSON.stringify([...seen].sort()));`;
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _a, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: _b, ...clean } = process.env;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...clean, ...env },
      encoding: 'utf8',
    }),
  ) as string[];
}

test('without an OTLP endpoint no module of the OpenTelemetry SDK is loaded', () => {
  assert.deepEqual(otelModulesLoaded({}), ['@opentelemetry/api']);
});

test('with OTEL_EXPORTER_OTLP_ENDPOINT the SDK and the OTLP exporter are loaded', () => {
  const loaded = otelModulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
  for (const name of ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-http'])
    assert.ok(loaded.includes(name), name);
});

test('tracingWanted follows the standard variables', () => {
  assert.equal(tracingWanted({}), false);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), false);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), false);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
});
