import i18n from './i18n';

// JSON that does not parse, in the operator's words: the browser's own
// message is in English (and differs between engines), so the panel says
// only where the text went wrong, when the engine tells.

// jsonErrorOffset is where in text the parse error err was found, as an
// offset: from "… at position N" (V8, with " (line L column C)" in newer
// ones) or "… at line L column C of the JSON data" (Firefox); undefined
// when the message says neither (JavaScriptCore, and V8 for some errors).
// Only the message's end is read: V8 quotes the text itself in some
// messages, and the text may say anything.
export function jsonErrorOffset(err: unknown, text: string): number | undefined {
  const message = err instanceof Error ? err.message : '';
  let m = / at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message);
  if (m) return Math.min(Number(m[1]), text.length);
  m = / at line (\d+) column (\d+) of the JSON data$/.exec(message);
  if (!m) return undefined;
  const lines = text.split('\n').slice(0, Number(m[1]) - 1);
  return Math.min(lines.reduce((n, l) => n + l.length + 1, 0) + Number(m[2]) - 1, text.length);
}

// jsonErrorPlace is the line and column (from 1, in characters) where
// the parse error err of text was found, when the engine said where.
export function jsonErrorPlace(err: unknown, text: string): { line: number; column: number } | undefined {
  const at = jsonErrorOffset(err, text);
  if (at === undefined) return undefined;
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: [...(before[before.length - 1] ?? '')].length + 1 };
}

// jsonErrorWords says a parse error of text: "Not valid JSON: line 2,
// column 5." where the engine said where, else "Not valid JSON.".
export function jsonErrorWords(err: unknown, text: string): string {
  const t = i18n.getFixedT(null, 'form');
  const place = jsonErrorPlace(err, text);
  return place ? t('Not valid JSON: line {{line, number}}, column {{column, number}}.', place) : t('Not valid JSON.');
}

// jsonProblem says what is wrong with a JSON text, or '' when it parses
// (an empty text is no value). It checks with JSON.parse, whose error
// places the text as written (parseJSON may rewrite big integers first);
// both take the same texts.
export function jsonProblem(text: string): string {
  if (text.trim() === '') return '';
  try {
    JSON.parse(text);
    return '';
  } catch (err) {
    return jsonErrorWords(err, text);
  }
}
