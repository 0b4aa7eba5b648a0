import { defineConfig } from 'i18next-cli';

// The panel's translations: every text of the UI is a key of a namespace
// (one per part of the panel) in src/locales/<language>/<namespace>.json.
// CI (.ci/run) runs `npm run i18n:check`: extract --ci fails on a key the
// code uses that a catalog lacks, status on a key missing from a shipped
// language, lint on a text left outside t().
export default defineConfig({
  locales: ['en', 'de'],
  extract: {
    input: ['src/**/*.{ts,tsx}'],
    ignore: ['src/api.gen.ts', 'src/**/*.test.{ts,tsx}'],
    output: 'src/locales/{{language}}/{{namespace}}.json',
    defaultNS: 'common',
    nsSeparator: false,
    keySeparator: false,
    primaryLanguage: 'en',
    removeUnusedKeys: true,
    sort: true,
    indentation: 2,
  },
});
