// The usage view: totals, cost and tokens per day by model and by key, requests and errors per hour, a table by
// model, and the MCP tool calls by server, tool and key (their usage rows: endpoint /mcp).
import { api } from './api.js';
import { count, downloadCsv, fillRows, h, ms, usd, usdAxis } from './dom.js';
import { requestsAndErrors, stackedBars } from './charts.js';

const $ = (id) => document.getElementById(id);
const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Series beyond these are summed as "other", so a chart stays readable. */
const MAX_SERIES = 8;

function rangeStart() {
  const days = Number($('usage-range').value);
  const now = Date.now();
  return days === 1
    ? now - DAY
    : Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate()) -
        (days - 1) * DAY;
}

function dayLabels(from) {
  const out = [];
  for (let t = Math.floor(from / DAY) * DAY; t <= Date.now(); t += DAY)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

function hourLabels(from) {
  const out = [];
  for (let t = Math.floor(from / HOUR) * HOUR; t <= Date.now(); t += HOUR)
    out.push(new Date(t).toISOString().slice(0, 13) + ':00Z');
  return out;
}

/**
 * An hour bucket (`2026-11-26T10:00Z`) as the reader's clock shows it, as the request log's times are:
 * the buckets are UTC hours, which are whole hours in the reader's zone too (but for a few half-hour zones).
 */
function localHour(iso) {
  return new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

function localDay(iso) {
  const d = new Date(iso);
  return `${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Rows grouped by (day or hour, name) into stacked series, the biggest first. */
function seriesBy(rows, { labels, nameOf, valueOf, bucket }) {
  const byName = new Map();
  for (const r of rows) {
    const name = nameOf(r);
    if (!byName.has(name)) byName.set(name, new Array(labels.length).fill(0));
    const i = labels.indexOf(r[bucket]);
    if (i >= 0) byName.get(name)[i] += valueOf(r);
  }
  const all = [...byName]
    .map(([name, values]) => ({ name, values, total: values.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total);
  if (all.length <= MAX_SERIES) return all;
  const kept = all.slice(0, MAX_SERIES - 1);
  const other = all
    .slice(MAX_SERIES - 1)
    .reduce((acc, s) => acc.map((v, i) => v + s.values[i]), new Array(labels.length).fill(0));
  return [...kept, { name: 'other', values: other }];
}

const keyName = (r) => r.key_name ?? r.key_masked ?? r.key_id;
const tokens = (r) => r.total_tokens;
const cost = (r) => r.cost_usd;

function totalsBox(totals) {
  const item = (label, value) => h('div', {}, h('span', {}, label), h('strong', {}, value));
  $('usage-totals').replaceChildren(
    item('Requests', count(totals.requests)),
    item('Errors', count(totals.errors)),
    item('Tokens', count(totals.total_tokens)),
    item('Cost', usd(totals.cost_usd)),
    item('Latency p50 / p95', `${ms(totals.latency_p50_ms)} / ${ms(totals.latency_p95_ms)}`),
  );
}

export async function loadUsage() {
  $('usage-error').textContent = '';
  const from = rangeStart();
  const fromIso = new Date(from).toISOString();
  // The hourly chart covers at most the last two days: more hours than that are too thin to read.
  const hourFrom = Math.max(from, Date.now() - 2 * DAY);
  try {
    // The last 24 hours are drawn by the hour; longer ranges by the day.
    const bucket = Number($('usage-range').value) === 1 ? 'hour' : 'day';
    const [byModelDay, byKeyDay, hourly, byModel, toolCalls, byTeamDay] = await Promise.all([
      api(`/admin/usage?from=${fromIso}&group_by=${bucket},model`),
      api(`/admin/usage?from=${fromIso}&group_by=${bucket},key`),
      api(`/admin/usage?from=${new Date(hourFrom).toISOString()}&group_by=hour`),
      api(`/admin/usage?from=${fromIso}&group_by=model`),
      api(`/admin/usage?from=${fromIso}&endpoint=/mcp&group_by=deployment,model,key`),
      api(`/admin/usage?from=${fromIso}&group_by=${bucket},team`),
    ]);
    totalsBox(byModel.totals);
    for (const span of document.querySelectorAll('figcaption .bucket')) span.textContent = bucket;
    const days = bucket === 'hour' ? hourLabels(from) : dayLabels(from);
    const short = days.map((d) => (bucket === 'hour' ? localHour(d) : d.slice(5)));
    stackedBars($('chart-cost-model'), {
      labels: short,
      series: seriesBy(byModelDay.groups, { labels: days, nameOf: (r) => r.model, valueOf: cost, bucket }),
      format: usdAxis,
    });
    stackedBars($('chart-tokens-model'), {
      labels: short,
      series: seriesBy(byModelDay.groups, { labels: days, nameOf: (r) => r.model, valueOf: tokens, bucket }),
      format: count,
    });
    stackedBars($('chart-cost-key'), {
      labels: short,
      series: seriesBy(byKeyDay.groups, { labels: days, nameOf: keyName, valueOf: cost, bucket }),
      format: usdAxis,
    });
    stackedBars($('chart-tokens-key'), {
      labels: short,
      series: seriesBy(byKeyDay.groups, { labels: days, nameOf: keyName, valueOf: tokens, bucket }),
      format: count,
    });
    // Keys without a team are one series of their own.
    const teamName = (r) => r.team ?? '(no team)';
    stackedBars($('chart-cost-team'), {
      labels: short,
      series: seriesBy(byTeamDay.groups, { labels: days, nameOf: teamName, valueOf: cost, bucket }),
      format: usdAxis,
    });
    stackedBars($('chart-tokens-team'), {
      labels: short,
      series: seriesBy(byTeamDay.groups, { labels: days, nameOf: teamName, valueOf: tokens, bucket }),
      format: count,
    });
    const hours = hourLabels(hourFrom);
    const at = new Map(hourly.groups.map((g) => [g.hour, g]));
    requestsAndErrors($('chart-hourly'), {
      labels: hours.map((x) => `${localDay(x)} ${localHour(x)}`),
      requests: hours.map((x) => at.get(x)?.requests ?? 0),
      errors: hours.map((x) => at.get(x)?.errors ?? 0),
    });
    fillRows(
      $('usage-by-model').tBodies[0],
      byModel.groups.map((g) =>
        h(
          'tr',
          { 'data-model': g.model },
          h('td', {}, g.model),
          h('td', { class: 'num' }, count(g.requests)),
          h('td', { class: 'num' }, count(g.errors)),
          h('td', { class: 'num' }, count(g.input_tokens + g.cache_read_tokens + g.cache_write_tokens)),
          h('td', { class: 'num' }, count(g.output_tokens)),
          h('td', { class: 'num cost' }, usd(g.cost_usd)),
          h('td', { class: 'num' }, `${ms(g.latency_p50_ms)} / ${ms(g.latency_p95_ms)}`),
        ),
      ),
      'No usage in this range.',
    );
    fillRows(
      $('usage-tool-calls').tBodies[0],
      toolCalls.groups.map((g) =>
        h(
          'tr',
          { 'data-tool': g.model },
          h('td', {}, g.deployment ?? '(unknown)'),
          // The row's model is SERVER__TOOL: the tool is what follows the server's name and the separator.
          h('td', {}, g.deployment === null ? g.model : g.model.slice(g.deployment.length + 2)),
          h('td', {}, keyName(g)),
          h('td', { class: 'num' }, count(g.requests)),
          h('td', { class: 'num' }, count(g.errors)),
          h('td', { class: 'num' }, `${ms(g.latency_p50_ms)} / ${ms(g.latency_p95_ms)}`),
        ),
      ),
      'No MCP tool calls in this range.',
    );
  } catch (err) {
    $('usage-error').textContent = err.message;
  }
}

function usageCsv() {
  downloadCsv(
    `/admin/usage?from=${new Date(rangeStart()).toISOString()}&group_by=day,key,model&format=csv`,
    'modelgate-usage.csv',
  ).catch((err) => {
    $('usage-error').textContent = err.message;
  });
}

export function setupUsage() {
  $('usage-range').addEventListener('change', loadUsage);
  $('usage-csv').addEventListener('click', usageCsv);
}
