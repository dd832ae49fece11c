// Charts drawn as plain SVG: stacked bars per day (cost or tokens by model or key) and requests with errors per hour.
import { h, s } from './dom.js';

/** Colours told apart at a glance (and from the grey of "other"), darker and lighter pairs alternating. */
const PALETTE = [
  '#2457c5',
  '#e07b00',
  '#1a7f37',
  '#8e44ad',
  '#c0392b',
  '#16a085',
  '#d4a017',
  '#2c3e50',
  '#e84393',
  '#6c8ebf',
  '#8d6e63',
  '#00838f',
  '#9e9d24',
  '#5e35b1',
  '#ef6c57',
  '#43a047',
];
/** The sum of the smallest series, always grey. */
const OTHER = '#7f8c8d';
/** Each series name's colour, for the page's life: the same in every chart, whatever else a chart shows. */
const colours = new Map();
const taken = new Set();

/** FNV-1a over the name's UTF-16 units: a series' colour follows its name, not its place in a list. */
function hash(name) {
  let x = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) x = Math.imul(x ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return x;
}

/**
 * A series' colour: the palette entry its name hashes to; when another name already has that entry, the
 * next free one (so two series the page shows never share a colour until the palette runs out).
 */
export function colourOf(name) {
  if (name === 'other') return OTHER;
  let c = colours.get(name);
  if (c !== undefined) return c;
  const start = hash(name) % PALETTE.length;
  c = PALETTE[start];
  for (let i = 0; i < PALETTE.length; i++) {
    const candidate = PALETTE[(start + i) % PALETTE.length];
    if (!taken.has(candidate)) {
      c = candidate;
      break;
    }
  }
  colours.set(name, c);
  taken.add(c);
  return c;
}

/** The drawing's own units; the SVG scales to its box. A wide chart gets more units, so its text keeps its size. */
const H = 220;
const PAD = { left: 64, right: 8, top: 10, bottom: 26 };

/** A round upper bound for the axis (1, 2 or 5 × 10^n) and its tick step. */
function niceMax(max, { integer = false } = {}) {
  if (integer && max <= 4) return { top: 4, step: 1 };
  if (integer) {
    // Whole-number ticks (a count of requests has no 2.5): the step is 1, 2 or 5 × 10^n.
    const raw = Math.ceil(max / 4);
    const e = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * e).find((v) => v >= raw) ?? 10 * e;
    return { top: 4 * step, step };
  }
  if (max <= 0) return { top: 1, step: 0.25 };
  const exp = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= max) return { top: m * exp, step: (m * exp) / 4 };
  return { top: 10 * exp, step: 2.5 * exp };
}

function axes(svg, { W, top, step, format, labels, slot }) {
  const plotH = H - PAD.top - PAD.bottom;
  for (let v = 0; v <= top + step / 2; v += step) {
    const y = PAD.top + plotH - (v / top) * plotH;
    svg.append(s('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: 'axis' }));
    svg.append(s('text', { x: PAD.left - 6, y: y + 4, 'text-anchor': 'end' }, format(v)));
  }
  // At most ~10 x labels, evenly spaced.
  const every = Math.max(1, Math.ceil(labels.length / 10));
  labels.forEach((label, i) => {
    if (i % every !== 0) return;
    svg.append(s('text', { x: PAD.left + slot * i + slot / 2, y: H - 8, 'text-anchor': 'middle' }, label));
  });
}

function legend(items) {
  return h(
    'div',
    { class: 'legend' },
    items.map(([name, colour]) => h('span', {}, colourBox(colour), name)),
  );
}

function colourBox(colour) {
  const box = h('i');
  box.style.background = colour; // CSSOM, which the CSP allows (no inline style attribute)
  return box;
}

function empty(container) {
  container.replaceChildren(h('div', { class: 'nodata' }, 'No usage in this range.'));
}

/**
 * labels: x categories; series: [{ name, values[] }] stacked in order; format: axis and tooltip text.
 */
export function stackedBars(container, { labels, series, format, width = 640 }) {
  const W = width;
  const totals = labels.map((_, i) => series.reduce((sum, ser) => sum + (ser.values[i] ?? 0), 0));
  if (labels.length === 0 || totals.every((t) => t === 0)) return empty(container);
  const { top, step } = niceMax(Math.max(...totals));
  const slot = (W - PAD.left - PAD.right) / labels.length;
  const plotH = H - PAD.top - PAD.bottom;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': series.map((x) => x.name).join(', ') });
  axes(svg, { W, top, step, format, labels, slot });
  labels.forEach((label, i) => {
    let y = PAD.top + plotH;
    series.forEach((ser, j) => {
      const v = ser.values[i] ?? 0;
      if (v <= 0) return;
      const bh = (v / top) * plotH;
      y -= bh;
      svg.append(
        s(
          'rect',
          {
            x: PAD.left + slot * i + slot * 0.15,
            y,
            width: slot * 0.7,
            height: Math.max(bh, 0.5),
            fill: colourOf(ser.name),
          },
          s('title', {}, `${label} · ${ser.name}: ${format(v)}`),
        ),
      );
    });
  });
  container.replaceChildren(svg, legend(series.map((ser) => [ser.name, colourOf(ser.name)])));
}

/** Requests per slot as bars, errors drawn over them in red. */
export function requestsAndErrors(container, { labels, requests, errors, width = 1280 }) {
  if (labels.length === 0 || requests.every((r) => r === 0)) return empty(container);
  const W = width;
  const { top, step } = niceMax(Math.max(...requests), { integer: true });
  const slot = (W - PAD.left - PAD.right) / labels.length;
  const plotH = H - PAD.top - PAD.bottom;
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'requests and errors per hour' });
  axes(svg, { W, top, step, format: (v) => String(Math.round(v)), labels, slot });
  labels.forEach((label, i) => {
    const x = PAD.left + slot * i + slot * 0.1;
    const bottom = PAD.top + plotH;
    const rh = (requests[i] / top) * plotH;
    const eh = (errors[i] / top) * plotH;
    if (requests[i] > 0)
      svg.append(
        s(
          'rect',
          { x, y: bottom - rh, width: slot * 0.8, height: rh, fill: '#9db4e8' },
          s('title', {}, `${label}: ${requests[i]} requests`),
        ),
      );
    if (errors[i] > 0)
      svg.append(
        s(
          'rect',
          { x, y: bottom - eh, width: slot * 0.8, height: Math.max(eh, 1), fill: '#c0392b' },
          s('title', {}, `${label}: ${errors[i]} errors`),
        ),
      );
  });
  container.replaceChildren(
    svg,
    legend([
      ['requests', '#9db4e8'],
      ['errors', '#c0392b'],
    ]),
  );
}
