// Small DOM helpers: elements built with textContent (never innerHTML), so nothing from the API runs as markup.
import { api } from './api.js';

/** h('td', { class: 'num' }, 'text', child…); `on…` attributes become listeners. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  appendAll(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  appendAll(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function appendAll(el, children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

/** Replaces a table body's rows; an empty list shows `empty` across the table. */
export function fillRows(tbody, rows, empty) {
  const cols = tbody.closest('table').querySelectorAll('thead th').length;
  tbody.replaceChildren(...(rows.length > 0 ? rows : [h('tr', {}, h('td', { class: 'empty', colspan: cols }, empty))]));
}

export function usd(n) {
  if (n === null || n === undefined) return '–';
  if (n === 0) return '$0';
  if (Math.abs(n) < 0.01) return `$${n.toPrecision(2)}`;
  return `$${n.toFixed(2)}`;
}

/** Shorter than `usd` for an axis: tiny amounts in exponent form, so the label fits. */
export function usdAxis(n) {
  if (n === 0) return '$0';
  if (n < 0.001) return `$${n.toExponential(1)}`;
  if (n < 1) return `$${Number(n.toPrecision(2))}`;
  return `$${Number(n.toFixed(2))}`;
}

export function count(n) {
  if (n === null || n === undefined) return '–';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function ms(n) {
  if (n === null || n === undefined) return '–';
  return n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`;
}

export function localTime(iso) {
  const d = new Date(iso);
  return d.toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/**
 * Downloads an admin API answer as a file: fetched with the tab's credentials (a plain link would carry no
 * bearer token), then saved from a blob URL.
 */
export async function downloadCsv(path, filename) {
  const res = await api(path, { raw: true });
  const url = URL.createObjectURL(await res.blob());
  const a = h('a', { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** "5 min ago", "3 h ago", "2 days ago", or the date past a month; "never" for null. */
export function ago(iso, now = Date.now()) {
  if (iso === null || iso === undefined) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 30 * 86_400) return `${Math.floor(s / 86_400)} day${s < 2 * 86_400 ? '' : 's'} ago`;
  return iso.slice(0, 10);
}
