// Exact JSON. Games key rows by Steam ids and snowflakes past 2^53, which
// JSON.parse rounds to a neighbour's (76561198000000002 becomes …000): the
// panel would then show, link and write the wrong row. parseJSON keeps an
// integer a double cannot hold as a BigInt, and stringifyJSON writes a
// BigInt back as the same JSON number, digit for digit. Every answer of
// the API is read with parseJSON and every body written with
// stringifyJSON; anything that shows or re-serializes a value of a row
// uses them (JSON.stringify throws on a BigInt).

type Context = { source?: string };
type RawJSON = (text: string) => unknown;
const rawJSON = (JSON as unknown as { rawJSON?: RawJSON }).rawJSON;

const integer = /^-?\d+$/;

// The reviver's third argument (the number's own text) is Chromium 114+,
// Firefox 135+, Safari 18.4+; older browsers go through the tokenizer.
const hasSource = (() => {
  let ok = false;
  try {
    JSON.parse('1', (_k: string, v: unknown, c?: Context) => {
      ok = typeof c?.source === 'string';
      return v;
    });
  } catch {
    ok = false;
  }
  return ok;
})();

// A marked string stands for a big integer where the browser has neither
// the reviver's source nor JSON.rawJSON.
const mark = '\u0000n:';

// isBig says whether v is an integer only a BigInt holds exactly.
export function isBig(v: unknown): v is bigint {
  return typeof v === 'bigint';
}

// isNumeric: a JSON number of either kind.
export function isNumeric(v: unknown): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

// exactInteger turns the digits of an integer into the value parseJSON
// would give them: a number when a double holds it exactly, else a BigInt.
export function exactInteger(digits: string): number | bigint {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : BigInt(digits);
}

export function parseJSON(text: string): unknown {
  if (hasSource) {
    return JSON.parse(text, (_k: string, v: unknown, c?: Context) =>
      typeof v === 'number' && !Number.isSafeInteger(v) && c?.source !== undefined && integer.test(c.source) ? BigInt(c.source) : v,
    );
  }
  // Strings are matched whole, so digits inside them are left alone.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (m) =>
    m[0] !== '"' && integer.test(m) && !Number.isSafeInteger(Number(m)) ? `"\\u0000n:${m}"` : m,
  );
  return JSON.parse(marked, (_k: string, v: unknown) => (typeof v === 'string' && v.startsWith(mark) ? BigInt(v.slice(mark.length)) : v));
}

// stringifyJSON is JSON.stringify that writes BigInts as JSON numbers.
export function stringifyJSON(v: unknown, space?: number): string {
  if (rawJSON) return JSON.stringify(v, (_k: string, x: unknown) => (typeof x === 'bigint' ? rawJSON(x.toString()) : x), space);
  const out: string | undefined = JSON.stringify(v, (_k: string, x: unknown) => (typeof x === 'bigint' ? mark + x.toString() : x), space);
  return out === undefined ? (out as unknown as string) : out.replace(/"\\u0000n:(-?\d+)"/g, '$1');
}
