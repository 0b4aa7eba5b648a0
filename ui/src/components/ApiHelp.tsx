import { useState } from 'react';
import { Code } from 'lucide-react';
import { API, seg, type ResourceMeta } from '../api';
import { Modal } from './ConfirmDialog';
import { stringifyJSON } from '../json';

// ApiHelp is a list page's "API" button: how to call this resource from
// a script (curl for a list and a create, with the session cookie), and
// the OpenAPI document of everything this operator may call.
export function ApiHelp({ meta }: { meta: ResourceMeta }) {
  const [open, setOpen] = useState(false);
  const origin = window.location.origin;
  const url = `${origin}${API}/${seg(meta.name)}`;
  const example: Record<string, string> = {};
  for (const c of meta.columns) if (c.required && !c.primary) example[c.name] = '…';
  const list = `curl -b "game_admin_session=$SESSION" '${url}?_start=0&_end=25'`;
  const create = `curl -b "game_admin_session=$SESSION" -H 'Content-Type: application/json' -H 'Origin: ${origin}' \\\n  -X POST '${url}' -d '${stringifyJSON(example)}'`;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        <Code size={14} aria-hidden="true" /> API
      </button>
      {open && (
        <Modal title={`${meta.label} from a script`} description="Sign in with POST /auth/login, then send the session cookie it sets with each call." onClose={() => setOpen(false)} className="dialog-wide">
          <div className="stack">
            {meta.permissions.list && (
              <div>
                <h3 className="api-h">List</h3>
                <pre className="json-block api-curl">{list}</pre>
              </div>
            )}
            {meta.permissions.create && (
              <div>
                <h3 className="api-h">Create</h3>
                <pre className="json-block api-curl">{create}</pre>
              </div>
            )}
            <p>
              Every call you may make, with its parameters and answers:{' '}
              <a href={`${API}/_openapi.json`} target="_blank" rel="noreferrer">the OpenAPI document</a>.
            </p>
            <div className="dialog-buttons">
              <button type="button" onClick={() => setOpen(false)}>Close</button>
            </div>
          </div>
        </Modal>
      )}
    </>
  );
}
