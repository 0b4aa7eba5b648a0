import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import resourcesToBackend from 'i18next-resources-to-backend';

// The panel in the operator's language. Every text of the UI is a key of
// a namespace (one per part of the panel) in src/locales/<lng>/<ns>.json:
// the key is the English text itself, so English needs no lookup to read
// and a changed English text is a new key every other language must
// translate (npm run i18n:check fails until it does). Each catalog, in
// English too, is a chunk of its own that loads on first use, so a first
// visit does not carry the words of pages it never opens; until it is
// there its keys show, which are the English.
//
// The language: the operator's choice kept in their account (the account
// page; /auth/me's locale) when they made one, else the first of the
// browser's languages (what it sends as Accept-Language) the panel ships,
// else English. Dates, numbers, durations and plurals go through Intl in
// that language (time.tsx, formatNumber; i18next's plurals).

// languages are the panel's shipped languages, each named in itself for
// the account page's choice. The server keeps the same list
// (internal/engine, uiLocales) to refuse another.
export const languages = { en: 'English', de: 'Deutsch' } as const;
export type Language = keyof typeof languages;

const catalogs = import.meta.glob<Record<string, string>>('./locales/*/*.json', { import: 'default' });

const storeKey = 'gameadmin-locale';

// browserLanguage is the first of the browser's languages the panel ships.
export function browserLanguage(): Language {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split('-')[0] ?? '';
    if (base in languages) return base as Language;
  }
  return 'en';
}

// remembered is the account's choice as this browser last heard it, so
// the first paint is in it before /auth/me answers.
function remembered(): Language | null {
  try {
    const v = localStorage.getItem(storeKey);
    return v && v in languages ? (v as Language) : null;
  } catch {
    return null;
  }
}

// ready is when the first language's common words are there: the panel
// paints first then (main.tsx).
export const i18nReady = i18n
  .use(initReactI18next)
  .use(
    resourcesToBackend((lng: string, ns: string) => {
      const load = catalogs[`./locales/${lng}/${ns}.json`];
      return load ? load() : Promise.resolve({});
    }),
  )
  .init({
    lng: remembered() ?? browserLanguage(),
    fallbackLng: 'en',
    supportedLngs: Object.keys(languages),
    // errors (the server's refusals, said outside any component) loads
    // with a language other than English (api.ts): in English a refusal
    // is the server's own words.
    ns: ['common'],
    defaultNS: 'common',
    nsSeparator: false,
    keySeparator: false,
    interpolation: { escapeValue: false }, // React escapes
    returnEmptyString: false,
    // A component whose words have not loaded yet shows their keys, the
    // English text, until they have, rather than suspend: a namespace
    // first used in the middle of an interaction (a dialog's form) would
    // otherwise put the whole page back to its loading state and lose
    // what the operator was doing.
    react: { useSuspense: false },
  });

// applyAccountLanguage applies the account's choice (locale from /auth/me:
// "" when none, so the browser's) and remembers it for the next load.
export function applyAccountLanguage(locale: string | undefined | null) {
  const lng = locale && locale in languages ? (locale as Language) : null;
  try {
    if (lng) localStorage.setItem(storeKey, lng);
    else localStorage.removeItem(storeKey);
  } catch {
    // private mode: the choice still holds for this page
  }
  const want = lng ?? browserLanguage();
  if (i18n.language !== want) void i18n.changeLanguage(want);
}

// <html lang> follows the language, for screen readers and hyphenation.
i18n.on('languageChanged', (lng) => {
  document.documentElement.lang = lng;
});
document.documentElement.lang = i18n.language;

// intlLocale is the panel's language as the browser's own languages
// refine it, for Intl: an English panel in a British browser says dates
// and numbers the British way (en-GB), as the browser's locale did before
// the panel had languages.
export function intlLocale(): string {
  const lng = i18n.language || 'en';
  for (const tag of navigator.languages ?? [navigator.language]) {
    if (tag && tag.toLowerCase().split('-')[0] === lng) return tag;
  }
  return lng;
}

// formatNumber says a number in the operator's language.
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(intlLocale(), options).format(n);
}

export default i18n;
