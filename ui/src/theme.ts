import { useSyncExternalStore } from 'react';

// The colour theme: the system's (prefers-color-scheme) unless the
// operator picked one, remembered in this browser's localStorage.
export type Theme = 'light' | 'dark';

const key = 'gameadmin-theme';
const media = typeof window !== 'undefined' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
const listeners = new Set<() => void>();

function stored(): Theme | null {
  try {
    const v = localStorage.getItem(key);
    return v === 'light' || v === 'dark' ? v : null;
  } catch {
    return null;
  }
}

export function currentTheme(): Theme {
  return stored() ?? (media?.matches ? 'dark' : 'light');
}

// applyTheme marks <html> with the theme in force (data-theme), which the
// stylesheet's dark colours key on.
export function applyTheme() {
  document.documentElement.dataset.theme = currentTheme();
  document.documentElement.style.colorScheme = currentTheme();
  listeners.forEach((l) => l());
}

export function setTheme(t: Theme) {
  try {
    localStorage.setItem(key, t);
  } catch {
    // private mode: the choice lasts this page
  }
  applyTheme();
}

media?.addEventListener('change', applyTheme);

export function useTheme(): Theme {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    currentTheme,
  );
}

// useMediaQuery is whether the media query matches, kept up to date.
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (l) => {
      const m = window.matchMedia(query);
      m.addEventListener('change', l);
      return () => m.removeEventListener('change', l);
    },
    () => window.matchMedia(query).matches,
  );
}
