import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Download, Eraser } from 'lucide-react';
import { toast } from 'sonner';
import { API, client, errorText, dataOf, seg } from '../api';
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

// ruleWords says what an erase does to a resource's rows.
const ruleWords: Record<ErasePart['rule'], string> = {
  delete: 'deleted',
  unlink: 'kept, no longer linked to them',
  anonymize: 'kept, their personal columns cleared',
  keep: 'kept as they are (legal hold)',
};

// DataRequests are an admin's answers to a player's data request, on the
// user's page: Export data (one JSON file) and Erase…. email is null for
// a guest player, who has none: the erase is then confirmed with their id.
export function DataRequests({ id, name, email, onErased }: { id: string; name: string; email: string | null; onErased: () => void }) {
  const [erasing, setErasing] = useState(false);
  const base = `/users/${seg(id)}`;
  return (
    <div className="data-requests">
      <h3>Data requests</h3>
      <div className="toolbar">
        <a className="button" href={`${API}${base}/_export`} download>
          <Download size={14} aria-hidden="true" /> Export data
        </a>
        <button type="button" className="danger" onClick={() => setErasing(true)}>
          <Eraser size={14} aria-hidden="true" /> Erase…
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
  const plan = useQuery({ queryKey: ['erase-plan', id], queryFn: () => dataOf(client.POST('/users/{id}/_erase', { params: { path: { id }, query: { dryRun: true } } })).then((r) => r as EraseReport), gcTime: 0, retry: false });
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const matches = typed.trim().toLowerCase() === confirm.toLowerCase();
  const erase = async () => {
    setBusy(true);
    try {
      await client.POST('/users/{id}/_erase', { params: { path: { id } }, body: { confirm: typed.trim() } });
      toast.success(`${name}'s personal data is erased`);
      onClose();
      onErased();
    } catch (err) {
      toast.error(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Modal title={`Erase ${name}'s personal data?`} description="This cannot be undone. Their account stays, empty, banned for good; their sessions end." onClose={onClose}>
      {plan.isPending ? (
        <Loading />
      ) : plan.isError ? (
        <ErrorNote error={plan.error} />
      ) : (
        <>
          <div className="table-wrap">
            <table className="data-table compact wrap" aria-label="What the erase does">
              <thead><tr><th>Where</th><th>Rows</th><th>What happens</th></tr></thead>
              <tbody>
                {plan.data.resources.map((p) => (
                  <tr key={p.relation}><td>{p.label}</td><td>{p.rows.toLocaleString()}</td><td>{p.relation === 'reports' ? 'kept; their words replaced by “[erased]”, open ones about them closed' : (ruleWords[p.rule] ?? p.rule)}</td></tr>
                ))}
                <tr><td>Audit log</td><td>{plan.data.auditEntries.toLocaleString()}</td><td>kept; every email they had, their names and the erased rows’ values replaced by “[erased]”</td></tr>
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
                <span>This player has no email: type their id <strong className="erase-email">{confirm}</strong> to confirm</span>
              ) : (
                <span>Type <strong className="erase-email">{confirm}</strong> to confirm</span>
              )}
              <input autoComplete="off" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
            </label>
            <div className="dialog-buttons">
              <button type="button" onClick={onClose}>Cancel</button>
              <button type="submit" className="danger" disabled={!matches || busy}>Erase</button>
            </div>
          </form>
        </>
      )}
    </Modal>
  );
}
