// precompress writes a .br (brotli, best quality) and a .gz (gzip -9)
// beside every script, stylesheet, SVG and JSON file of dist/ larger than
// 1 KiB, after `vite build`. The Go server (internal/uiserve) answers Accept-Encoding
// with these bytes, so nothing is compressed at run time. index.html is
// left out: the server rewrites it, then compresses it once at start-up.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
let n = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(js|css|svg|json)$/.test(entry.name)) continue;
  const file = path.join(entry.parentPath, entry.name);
  const buf = readFileSync(file);
  if (buf.length < 1024) continue;
  const br = brotliCompressSync(buf, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
  });
  writeFileSync(file + '.br', br);
  writeFileSync(file + '.gz', gzipSync(buf, { level: 9 }));
  console.log(`precompress: ${path.relative(dist, file)} ${buf.length} → br ${br.length}`);
  n++;
}
if (n === 0) throw new Error('precompress: nothing to compress in ' + dist);
