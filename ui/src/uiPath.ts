// uiPath and apiPath are where the Go server mounted the panel and its API,
// from the <meta> tags it fills in. The dev server leaves the placeholders:
// then the defaults.
function readPath(name: string, fallback: string): string {
  const v = document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? '';
  if (!v.startsWith('/') || v.startsWith('//') || v.includes('\\')) return fallback;
  return v.replace(/\/+$/, '') || fallback;
}

export const uiPath = readPath('admin-ui-path', '/admin');
export const apiPath = readPath('admin-api-path', '/admin-api');

// Next is where sign-in leads: a route inside the panel, or a page of the
// game's on this origin (a full page load).
export type Next = { route: string } | { href: string };

function under(p: string, base: string): boolean {
  return p === base || p.startsWith(base + '/') || p.startsWith(base + '?');
}

// safeNext turns a ?next= value into a route inside the panel, a same-origin
// page outside it, or null. Only a plain absolute path is accepted (no
// scheme, no //host, no backslash, no control character), and it must
// resolve to this origin, so the sign-in page cannot be made an open
// redirect.
export function safeNext(next: string | null): Next | null {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  if (/[\u0000-\u001f\u007f]/.test(next)) return null;
  let url: URL;
  try {
    url = new URL(next, window.location.origin);
  } catch {
    return null;
  }
  if (url.origin !== window.location.origin) return null;
  if (under(next, apiPath)) return null;
  if (!under(next, uiPath)) return { href: url.pathname + url.search + url.hash };
  const rest = next.slice(uiPath.length);
  const route = rest === '' || rest.startsWith('?') ? '/' + rest : rest;
  if (route.startsWith('/login')) return { route: '/' };
  return { route };
}
