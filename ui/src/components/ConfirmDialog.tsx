import { useCallback, useRef, useState, type ReactNode } from 'react';

export interface ConfirmOptions {
  title: string;
  description?: string;
  confirmLabel?: string;
  danger?: boolean;
}

// useConfirm returns a dialog element to render and ask(), which resolves
// to whether the operator confirmed.
export function useConfirm(): [ReactNode, (o: ConfirmOptions) => Promise<boolean>] {
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
    <Modal title={opts.title} onClose={() => close(false)}>
      {opts.description && <p>{opts.description}</p>}
      <div className="dialog-buttons">
        <button type="button" onClick={() => close(false)}>Cancel</button>
        <button type="button" className={opts.danger ? 'danger' : 'primary'} autoFocus onClick={() => close(true)}>
          {opts.confirmLabel ?? 'Confirm'}
        </button>
      </div>
    </Modal>
  );
  return [dialog, ask];
}

export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="dialog" role="dialog" aria-modal="true" aria-label={title} onKeyDown={(e) => e.key === 'Escape' && onClose()}>
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  );
}
