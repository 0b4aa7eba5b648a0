import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Download, Eraser } from 'lucide-react';
import { toast } from 'sonner';
import { Trans, useTranslation } from 'react-i18next';
import { API, client, errorText, dataOf, seg } from '../api';
import { formatNumber } from '../i18n';
import { Modal } from '../components/ConfirmDialog';
import { ErrorNote, Loading } from '../components/Status';

interface ErasePart {
  relation: string;
  resource: string;
  label: string;
  rule: 'delete' | 'unlink' | 'anonymize' | 'keep';
  rows: number;
}

interface EraseReport {
  dryRun: boolean;
  resources: ErasePart[];
  auditEntries: number;
}

// useRuleWords says what an erase does to a resource's rows.
function useRuleWords(): Record<ErasePart['rule'], string> {
  const { t } = useTranslation('moderation');
  return {
    delete: t('deleted'),
    unlink: t('kept, no longer linked to them'),
    anonymize: t('kept, their personal columns cleared'),
    keep: t('kept as they are (legal hold)'),
  };
}

// DataRequests are an admin's answers to a player's data request, on the
// user's page: Export data (one JSON file) and Erase…. email is null for
// a guest player, who has none: the erase is then confirmed with their id.
export function DataRequests({ id, name, email, onErased }: { id: string; name: string; email: string | null; onErased: () => void }) {
  const { t } = useTranslation('moderation');
  const [erasing, setErasing] = useState(false);
  const base = `/users/${seg(id)}`;
  return (
    <div className="data-requests">
      <h3>{t('Data requests')}</h3>
      <div className="toolbar">
        <a className="button" href={`${API}${base}/_export`} download>
          <Download size={14} aria-hidden="true" /> {t('Export data')}
        </a>
        <button type="button" className="danger" onClick={() => setErasing(true)}>
          <Eraser size={14} aria-hidden="true" /> {t('Erase…')}
        </button>
      </div>
      {erasing && <EraseDialog id={id} name={name} confirm={email ?? id} guest={email === null} onClose={() => setErasing(false)} onErased={onErased} />}
    </div>
  );
}

// EraseDialog shows what an erase would do (a dry run: rows per resource,
// audit entries redacted) and erases once the operator types the email,
// or for a guest (no email) the player's id: confirm is what to type.
function EraseDialog({ id, name, confirm, guest, onClose, onErased }: { id: string; name: string; confirm: string; guest: boolean; onClose: () => void; onErased: () => void }) {
  const { t } = useTranslation('moderation');
  const ruleWords = useRuleWords();
  const plan = useQuery({ queryKey: ['erase-plan', id], queryFn: () => dataOf(client.POST('/users/{id}/_erase', { params: { path: { id }, query: { dryRun: true } } })).then((r) => r as EraseReport), gcTime: 0, retry: false });
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const matches = typed.trim().toLowerCase() === confirm.toLowerCase();
  const erase = async () => {
    setBusy(true);
    try {
      await client.POST('/users/{id}/_erase', { params: { path: { id } }, body: { confirm: typed.trim() } });
      toast.success(t("{{name}}'s personal data is erased", { name }));
      onClose();
      onErased();
    } catch (err) {
      toast.error(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Modal
      title={t("Erase {{name}}'s personal data?", { name })}
      description={t('This cannot be undone. Their account stays, empty, banned for good; their sessions end.')}
      onClose={onClose}
    >
      {plan.isPending ? (
        <Loading />
      ) : plan.isError ? (
        <ErrorNote error={plan.error} />
      ) : (
        <>
          <div className="table-wrap">
            <table className="data-table compact wrap" aria-label={t('What the erase does')}>
              <thead><tr><th>{t('Where')}</th><th>{t('Rows')}</th><th>{t('What happens')}</th></tr></thead>
              <tbody>
                {plan.data.resources.map((p) => (
                  <tr key={p.relation}>
                    <td>{p.label}</td>
                    <td>{formatNumber(p.rows)}</td>
                    <td>{p.relation === 'reports' ? t('kept; their words replaced by “[erased]”, open ones about them closed') : (ruleWords[p.rule] ?? p.rule)}</td>
                  </tr>
                ))}
                <tr>
                  <td>{t('Audit log')}</td>
                  <td>{formatNumber(plan.data.auditEntries)}</td>
                  <td>{t('kept; every email they had, their names and the erased rows’ values replaced by “[erased]”')}</td>
                </tr>
              </tbody>
            </table>
          </div>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              if (matches && !busy) void erase();
            }}
          >
            <label>
              {guest ? (
                <span>
                  <Trans t={t} i18nKey="This player has no email: type their id <strong>{{confirm}}</strong> to confirm" values={{ confirm }} components={{ strong: <strong className="erase-email" /> }} />
                </span>
              ) : (
                <span>
                  <Trans t={t} i18nKey="Type <strong>{{confirm}}</strong> to confirm" values={{ confirm }} components={{ strong: <strong className="erase-email" /> }} />
                </span>
              )}
              <input autoComplete="off" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
            </label>
            <div className="dialog-buttons">
              <button type="button" onClick={onClose}>{t('Cancel')}</button>
              <button type="submit" className="danger" disabled={!matches || busy}>{t('Erase')}</button>
            </div>
          </form>
        </>
      )}
    </Modal>
  );
}
