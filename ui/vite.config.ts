import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// sonner injects its stylesheet at run time as an inline <style>, which the
// UI's CSP (style-src 'self') refuses. The app imports sonner's
// stylesheet instead, and this drops the injection.
const sonnerStylesheetOnly: Plugin = {
  name: 'sonner-stylesheet-only',
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]sonner[\\/]dist[\\/]index\.m?js$/.test(id)) return null;
    const out = code.replace(/\b__insertCSS\("/, '(function () {})("');
    if (out === code) throw new Error('sonner-stylesheet-only: no __insertCSS call in ' + id);
    return { code: out, map: null };
  },
};

// Radix dialogs lock page scrolling through react-style-singleton, which
// adds an inline <style> element: refused by the same CSP. This swaps its
// stylesheet for a constructed one (document.adoptedStyleSheets), which
// the CSP allows, with the same add/remove counting.
const constructedScrollLockStyles: Plugin = {
  name: 'constructed-scroll-lock-styles',
  transform(_code, id) {
    if (!/[\\/]node_modules[\\/]react-style-singleton[\\/]dist[\\/]es\d+[\\/]singleton\.js$/.test(id)) return null;
    const code = `export var stylesheetSingleton = function () {
  var counter = 0;
  var sheet = null;
  return {
    add: function (style) {
      if (counter == 0 && typeof document !== 'undefined') {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(style);
        document.adoptedStyleSheets = document.adoptedStyleSheets.concat([sheet]);
      }
      counter++;
    },
    remove: function () {
      counter--;
      if (!counter && sheet) {
        var s = sheet;
        document.adoptedStyleSheets = document.adoptedStyleSheets.filter(function (x) { return x !== s; });
        sheet = null;
      }
    },
  };
};
`;
    return { code, map: null };
  },
};

// The Go server serves dist/ under any UIPath (internal/uiserve): asset URLs are
// relative here, and it rewrites index.html's "./assets/" to
// "<UIPath>/assets/" and fills in the admin-ui-path <meta>.
export default defineConfig({
  base: './',
  plugins: [react(), sonnerStylesheetOnly, constructedScrollLockStyles],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // Assets are always files, never data: URLs inlined into scripts.
    assetsInlineLimit: 0,
  },
  server: {
    proxy: { '/admin-api': 'http://localhost:8080' },
  },
});
