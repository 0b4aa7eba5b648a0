import { lazy, Suspense, useEffect, useRef, useState } from 'react';

const PaletteBody = lazy(() => import('./PaletteBody'));

// CommandPalette opens on Ctrl-K / Cmd-K (or the header's button, which
// dispatches "open-palette"): a native modal <dialog>, so the page behind
// is inert, Escape closes it and focus returns where it was. Its content
// (cmdk) loads on first use.
export function CommandPalette() {
  const ref = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    // Open the dialog itself as well as the state: Escape closes the
    // native dialog at once but tells React only with the close event,
    // a task later, so a Ctrl-K pressed in between found the state still
    // open, changed nothing, and the close event then shut the palette.
    const show = () => {
      setOpen(true);
      const d = ref.current;
      if (d && !d.open) d.showModal();
    };
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        show();
      }
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('open-palette', show);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('open-palette', show);
    };
  }, []);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="palette"
      aria-label="Command palette"
      // A close event of a dialog opened again since is stale.
      onClose={() => !ref.current?.open && setOpen(false)}
      onMouseDown={(e) => e.target === e.currentTarget && setOpen(false)}
    >
      {open && (
        <Suspense fallback={<p className="muted palette-loading">Loading…</p>}>
          <PaletteBody close={() => setOpen(false)} />
        </Suspense>
      )}
    </dialog>
  );
}
