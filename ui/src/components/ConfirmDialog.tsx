import { useCallback, useRef, useState, type ReactNode } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import { useTranslation } from 'react-i18next';

export interface ConfirmOptions {
  title: string;
  description?: string;
  confirmLabel?: string;
  danger?: boolean;
  // body is shown between the description and the buttons: what exactly
  // will happen (a revert's field, now, after).
  body?: ReactNode;
}

// useConfirm returns a dialog element to render and ask(), which resolves
// to whether the operator confirmed.
export function useConfirm(): [ReactNode, (o: ConfirmOptions) => Promise<boolean>] {
  const { t } = useTranslation('common');
  const [opts, setOpts] = useState<ConfirmOptions | null>(null);
  const resolver = useRef<(ok: boolean) => void>(() => {});
  const ask = useCallback((o: ConfirmOptions) => {
    setOpts(o);
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);
  const close = (ok: boolean) => {
    setOpts(null);
    resolver.current(ok);
  };
  const dialog = opts && (
    <Modal title={opts.title} description={opts.description} onClose={() => close(false)}>
      {opts.body}
      <div className="dialog-buttons">
        {/* Focus starts on Cancel: Enter pressed once too often (or the
            Enter that opened the dialog repeating) does nothing for good. */}
        <button type="button" autoFocus onClick={() => close(false)}>{t('Cancel')}</button>
        <button type="button" className={opts.danger ? 'danger' : 'primary'} onClick={() => close(true)}>
          {opts.confirmLabel ?? t('Confirm')}
        </button>
      </div>
    </Modal>
  );
  return [dialog, ask];
}

// Modal is an open dialog (Radix): focus stays inside, Escape and a click
// outside call onClose, and focus returns where it was when it closes.
// Render it to open it.
export function Modal({ title, description, onClose, className, children }: {
  title: string;
  description?: string;
  onClose: () => void;
  className?: string;
  children: ReactNode;
}) {
  // Radix returns focus to a Dialog.Trigger; these dialogs open from code,
  // so focus goes back to what had it when the dialog opened.
  const [opener] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
  const returnFocus = (e: Event) => {
    e.preventDefault();
    if (opener?.isConnected) opener.focus();
  };
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay">
          <Dialog.Content className={'dialog ' + (className ?? '')} onCloseAutoFocus={returnFocus} {...(description ? {} : { 'aria-describedby': undefined })}>
            <Dialog.Title asChild>
              <h2>{title}</h2>
            </Dialog.Title>
            {description && <Dialog.Description>{description}</Dialog.Description>}
            {children}
          </Dialog.Content>
        </Dialog.Overlay>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
