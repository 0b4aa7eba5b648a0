import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

const loadBody = () => import('./PaletteBody');
const PaletteBody = lazy(loadBody);

// CommandPalette opens on Ctrl-K / Cmd-K (or the header's button, which
// dispatches "open-palette"): a native modal <dialog>, so the page behind
// is inert, Escape closes it and focus returns where it was. Its content
// (cmdk) is fetched once the page is idle; opened before it is in, the
// palette shows its search box at once and keeps what is typed there.
export function CommandPalette() {
  const { t } = useTranslation('palette');
  const ref = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [early, setEarly] = useState('');
  useEffect(() => {
    // After the first screen's own requests, not before them (Safari has
    // no requestIdleCallback: a timer there).
    if (typeof requestIdleCallback !== 'function') {
      const timer = setTimeout(() => void loadBody(), 2000);
      return () => clearTimeout(timer);
    }
    const id = requestIdleCallback(() => void loadBody(), { timeout: 3000 });
    return () => cancelIdleCallback(id);
  }, []);
  useEffect(() => {
    // Open the dialog itself as well as the state: Escape closes the
    // native dialog at once but tells React only with the close event,
    // a task later, so a Ctrl-K pressed in between found the state still
    // open, changed nothing, and the close event then shut the palette.
    const show = () => {
      setOpen(true);
      const d = ref.current;
      if (d && !d.open) {
        setEarly('');
        d.showModal();
      }
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
      aria-label={t('Command palette')}
      // A close event of a dialog opened again since is stale.
      onClose={() => !ref.current?.open && setOpen(false)}
      onMouseDown={(e) => e.target === e.currentTarget && setOpen(false)}
    >
      {open && (
        <Suspense
          fallback={
            <input
              className="palette-early"
              autoFocus
              value={early}
              onChange={(e) => setEarly(e.target.value)}
              placeholder={t('Find a resource, user, room or any row by name…')}
              aria-label={t('Search commands')}
            />
          }
        >
          <PaletteBody initial={early} close={() => setOpen(false)} />
        </Suspense>
      )}
    </dialog>
  );
}
