// The admin API through the standard fetch: with the admin token from this tab's sessionStorage, or, signed
// in with SSO, with the session cookie the browser sends by itself (same origin).

const TOKEN_KEY = 'modelgate.adminToken';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (t) => sessionStorage.setItem(TOKEN_KEY, t),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

let onUnauthorized = () => {};
/** Called when the gateway refuses the token (changed, or the tab's token is wrong): back to sign-in. */
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

export async function api(path, { method = 'GET', body, raw = false } = {}) {
  const headers = {};
  const t = token.get();
  if (t) headers.authorization = `Bearer ${t}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
  });
  if (res.status === 401) {
    token.clear();
    onUnauthorized();
    throw new ApiError('The admin token or the session was refused.', 401);
  }
  if (raw && res.ok) return res;
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below by status
  }
  if (!res.ok) throw new ApiError(json?.error?.message ?? `${res.status} ${res.statusText}`, res.status);
  return json;
}
