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

// The Go server serves dist/ under any UIPath (ui.go): asset URLs are
// relative here, and it rewrites index.html's "./assets/" to
// "<UIPath>/assets/" and fills in the admin-ui-path <meta>.
export default defineConfig({
  base: './',
  plugins: [react(), sonnerStylesheetOnly],
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
