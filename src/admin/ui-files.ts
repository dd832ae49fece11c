// The dashboard at /ui/: the committed files of ui/ (plain HTML, CSS, JavaScript; no build step), read once
// at boot and served from memory with their content types and a strict Content-Security-Policy.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join, resolve } from 'node:path';

const UI_DIR = resolve(import.meta.dirname, '../../ui');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/**
 * Scripts and styles from the gateway itself only (no inline code, no other origin), calls to the admin API
 * only, and no framing. The admin token lives in sessionStorage, so an injected script is what to keep out.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

interface UiFile {
  body: Buffer;
  type: string;
  etag: string;
}

export type UiHandler = (req: IncomingMessage, res: ServerResponse, path: string) => void;

export function loadUiFiles(dir = UI_DIR): Map<string, UiFile> {
  const files = new Map<string, UiFile>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const body = readFileSync(join(dir, name));
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return files;
}

/** Null when the admin API is off: a dashboard without it is a page that cannot sign in. */
export function createUiHandler(opts: { enabled: boolean; dir?: string; sso?: boolean }): UiHandler | null {
  if (!opts.enabled) return null;
  const files = loadUiFiles(opts.dir);
  // What the page needs to know of the gateway before it signs in: whether SSO (/auth/login) is there.
  const config = Buffer.from(JSON.stringify({ sso: opts.sso === true }));
  files.set('config.json', {
    body: config,
    type: 'application/json',
    etag: `"${createHash('sha256').update(config).digest('base64url').slice(0, 22)}"`,
  });
  return function uiRequest(req, res, path) {
    req.resume();
    if (path === '/ui') {
      res.writeHead(308, { location: '/ui/', 'content-length': 0 });
      res.end();
      return;
    }
    const name = path === '/ui/' ? 'index.html' : path.slice('/ui/'.length);
    const file = files.get(name);
    if (file === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end('Not found.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end('Method not allowed.\n');
      return;
    }
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, { etag: file.etag, ...SECURITY_HEADERS });
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': file.body.length,
      etag: file.etag,
      ...SECURITY_HEADERS,
    });
    res.end(file.body);
  };
}
