import { useEffect, useRef } from 'react';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { bracketMatching, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { forceLinting, linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { oneDark } from '@codemirror/theme-one-dark';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { useTheme, type Theme } from '../theme';
import { jsonErrorOffset, jsonErrorWords } from '../jsonWords';

// CodeMirrorJson is the JSON editor itself (CodeMirror 6): highlighting,
// bracket matching, history and a parse linter. JsonEditor loads it
// lazily, so it is not part of the first page load.
//
// It lives in a shadow root: CodeMirror writes its styles at run time,
// into a <style> element in a document (which the UI's CSP, style-src
// 'self', refuses) but into adopted stylesheets in a shadow root (which
// CSP allows).

// The page's CSS variables reach into the shadow root, so the editor's
// frame follows the panel's theme; its colours are CodeMirror's light
// highlighting or One Dark.
const frame = EditorView.theme({
  '&': { minHeight: '120px', maxHeight: '420px', fontSize: '12.5px' },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '-1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', overflow: 'auto' },
  '.cm-content': { minHeight: '120px' },
});
const light = [EditorView.theme({ '&': { backgroundColor: 'var(--input-bg)', color: 'var(--text)' } }), syntaxHighlighting(defaultHighlightStyle)];
const colours = (t: Theme): Extension => (t === 'dark' ? oneDark : light);

// parseLinter is lang-json's jsonParseLinter in the operator's words
// (jsonErrorWords) instead of the browser's English: the error at the
// place the engine says, else at the start.
const parseLinter = (view: EditorView): Diagnostic[] => {
  const text = view.state.doc.toString();
  try {
    JSON.parse(text);
    return [];
  } catch (err) {
    const at = jsonErrorOffset(err, text) ?? 0;
    return [{ from: at, to: at, severity: 'error', message: jsonErrorWords(err, text) }];
  }
};

// phrases are CodeMirror's own words that this editor's extensions say,
// in the operator's language: @codemirror/commands announces a deleted
// selection to screen readers; @codemirror/lint's panel (the linter's,
// opened by its command) names its list and its close button.
const phrases = (t: TFunction<'form'>): Extension =>
  EditorState.phrases.of({
    'Selection deleted': t('Selection deleted'),
    Diagnostics: t('Diagnostics'),
    'No diagnostics': t('No diagnostics'),
    close: t('close'),
  });
export default function CodeMirrorJson({ id, value, disabled, label, onChange }: {
  id: string;
  value: string;
  disabled: boolean;
  label: string;
  onChange: (v: string) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const palette = useRef(new Compartment());
  const words = useRef(new Compartment());
  const { t } = useTranslation('form');
  const tNow = useRef(t);
  tNow.current = t;
  const theme = useTheme();
  const themeNow = useRef(theme);
  themeNow.current = theme;
  const change = useRef(onChange);
  change.current = onChange;

  useEffect(() => {
    const el = host.current!;
    const shadow = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    shadow.replaceChildren(parent);
    const v = new EditorView({
      root: shadow,
      parent,
      state: EditorState.create({
        doc: value,
        extensions: [
          frame,
          palette.current.of(colours(themeNow.current)),
          words.current.of(phrases(tNow.current)),
          lineNumbers(),
          history(),
          bracketMatching(),
          json(),
          linter(parseLinter, { delay: 300 }),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.lineWrapping,
          EditorState.readOnly.of(disabled),
          EditorView.editable.of(!disabled),
          EditorView.contentAttributes.of({ id, 'aria-label': label }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) change.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // The editor owns its text once created; value changes from outside
    // (Format) are applied below.
  }, [disabled, id, label]);

  useEffect(() => {
    view.current?.dispatch({ effects: palette.current.reconfigure(colours(theme)) });
  }, [theme]);

  // The language changed: CodeMirror's words, and the linter's message
  // (it runs again on the next change; forced here so it follows now).
  useEffect(() => {
    const v = view.current;
    if (!v) return;
    v.dispatch({ effects: words.current.reconfigure(phrases(t)) });
    forceLinting(v);
  }, [t]);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div ref={host} className="cm-host" />;
}
