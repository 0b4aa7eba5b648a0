import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Modal } from './ConfirmDialog';

// ShortcutHelp is the list of the panel's keys, opened by "?" from
// anywhere but a field or an open dialog; Escape closes it and the focus
// returns where it was (Modal). "/" moves the focus to the page's search
// box (a list's), else opens the command palette.
//
// The keys said here are those of the code: the palette's
// (CommandPalette), a list's (DataTable, DataCards), the reports queue's
// (ReportsPage), the toasts' (sonner's Alt+T) and this one's.
export function ShortcutHelp() {
  const { t } = useTranslation('palette');
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || busy(document.activeElement)) return;
      if (e.key === '?') {
        e.preventDefault();
        setOpen(true);
      } else if (e.key === '/') {
        e.preventDefault();
        const box = document.querySelector<HTMLInputElement>('.content [role="search"] input');
        if (box) box.focus();
        else window.dispatchEvent(new Event('open-palette'));
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  if (!open) return null;
  const keys: [string[], string][] = [
    [[t('Ctrl K'), t('⌘ K')], t('Open the command palette: a page, a player, a room or any row by name')],
    [['/'], t('Search the list (elsewhere: open the command palette)')],
    [['j', '↓'], t('Next row of a list, next player of the reports queue')],
    [['k', '↑'], t('Previous row of a list, previous player of the reports queue')],
    [[t('Enter')], t('Open the row (or the player’s reports)')],
    [['x'], t('Select the row, or leave it out')],
    [[t('Alt T')], t('Go to the notifications (their Undo)')],
    [[t('Esc')], t('Close a dialog, a menu or the palette')],
    [['?'], t('Show these keys')],
  ];
  return (
    <Modal title={t('Keyboard shortcuts')} onClose={() => setOpen(false)} className="shortcut-help">
      <dl className="kv">
        {keys.map(([ks, what]) => (
          <div key={what}>
            <dt>
              {ks.map((k, i) => (
                <span key={k}>
                  {i > 0 && ', '}
                  <kbd>{k}</kbd>
                </span>
              ))}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div className="dialog-buttons">
        <button type="button" className="primary" onClick={() => setOpen(false)}>{t('Close')}</button>
      </div>
    </Modal>
  );
}

// busy: the key goes to a field or a widget of its own (a select, an
// editor, a menu), or a dialog is open: none of these keys are taken.
function busy(el: Element | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.tagName === 'INPUT') return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes((el as HTMLInputElement).type);
  if (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true;
  return !!el.closest('[role="dialog"], [role="alertdialog"], dialog, [role="menu"]') || !!document.querySelector('dialog[open], [role="dialog"], [role="alertdialog"]');
}
