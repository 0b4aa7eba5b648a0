import { useState } from 'react';
import { Code } from 'lucide-react';
import { Trans, useTranslation } from 'react-i18next';
import { API, seg, type ResourceMeta } from '../api';
import { Modal } from './ConfirmDialog';
import { stringifyJSON } from '../json';

// ApiHelp is a list page's "API" button: how to call this resource from
// a script (curl for a list and a create, with the session cookie), and
// the OpenAPI document of everything this operator may call.
export function ApiHelp({ meta }: { meta: ResourceMeta }) {
  const { t } = useTranslation('row');
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
        <Code size={14} aria-hidden="true" /> {t('API')}
      </button>
      {open && (
        <Modal title={t('{{resource}} from a script', { resource: meta.label })} description={t('Sign in with POST /auth/login, then send the session cookie it sets with each call.')} onClose={() => setOpen(false)} className="dialog-wide">
          <div className="stack">
            {meta.permissions.list && (
              <div>
                <h3 className="api-h">{t('List')}</h3>
                <pre className="json-block api-curl">{list}</pre>
              </div>
            )}
            {meta.permissions.create && (
              <div>
                <h3 className="api-h">{t('Create')}</h3>
                <pre className="json-block api-curl">{create}</pre>
              </div>
            )}
            <p>
              <Trans t={t} ns="row" components={{ openapi: <a href={`${API}/_openapi.json`} target="_blank" rel="noreferrer" /> }}
                i18nKey="Every call you may make, with its parameters and answers: <openapi>the OpenAPI document</openapi>." />
            </p>
            <div className="dialog-buttons">
              <button type="button" onClick={() => setOpen(false)}>{t('Close')}</button>
            </div>
          </div>
        </Modal>
      )}
    </>
  );
}
