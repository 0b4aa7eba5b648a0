// uiPath is where the Go server mounted the panel, from the <meta> it fills
// in. The dev server leaves the placeholder: then the default.
function readUIPath(): string {
  const v = document.querySelector('meta[name="admin-ui-path"]')?.getAttribute('content') ?? '';
  if (!v.startsWith('/') || v.startsWith('//')) return '/admin';
  return v.replace(/\/+$/, '') || '/admin';
}

export const uiPath = readUIPath();

// safeNext turns a ?next= value into a route inside the panel, or null. Only
// a plain absolute path under uiPath is accepted (no scheme, no //host, no
// backslash), so the sign-in page cannot be made an open redirect.
export function safeNext(next: string | null): string | null {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null;
  if (/[\u0000-\u001f]/.test(next)) return null;
  if (next !== uiPath && !next.startsWith(uiPath + '/') && !next.startsWith(uiPath + '?')) return null;
  const rest = next.slice(uiPath.length);
  const route = rest === '' || rest.startsWith('?') ? '/' + rest : rest;
  if (route.startsWith('/login')) return '/';
  return route;
}
