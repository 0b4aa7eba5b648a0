import { useEffect, useRef } from 'react';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { bracketMatching, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { linter, lintGutter } from '@codemirror/lint';
import { oneDark } from '@codemirror/theme-one-dark';
import { useTheme, type Theme } from '../theme';

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
          lineNumbers(),
          history(),
          bracketMatching(),
          json(),
          linter(jsonParseLinter(), { delay: 300 }),
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

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div ref={host} className="cm-host" />;
}
