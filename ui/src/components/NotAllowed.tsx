import { Link } from 'react-router';
import { ShieldX } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { useMe } from '../queries';

// NotAllowed is the page for what the operator's role does not reach: a
// resource missing from their catalog (out of a mod's scopes, or no such
// resource: the catalog cannot tell them apart) or an operation the
// resource's permissions refuse.

// builtinLabel names the panel's own resources, which a mod's catalog
// leaves out: the page says "the audit log", not "adminAudit".
function builtinLabel(resource: string, t: TFunction<'common'>): string | undefined {
  switch (resource) {
    case 'adminAudit':
      return t('the audit log');
    case 'roles':
      return t('Roles');
    case 'users':
      return t('Users');
  }
  return undefined;
}

// words says a resource key in words ("cloud_saves" → "cloud saves").
const words = (resource: string) => resource.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim();

// Operation is what a role may be refused on a resource.
export type Operation = 'create' | 'edit' | 'list' | 'view';

// refusal says the role may not do operation on the resource labelled
// label; role is undefined until /auth/me answers.
function refusal(t: TFunction<'common'>, operation: Operation, label: string, role: string | undefined): string {
  if (role === undefined) {
    switch (operation) {
      case 'create': return t('Your role may not create {{label}}.', { label });
      case 'edit': return t('Your role may not edit {{label}}.', { label });
      case 'list': return t('Your role may not list {{label}}.', { label });
      case 'view': return t('Your role may not view {{label}}.', { label });
    }
  }
  switch (operation) {
    case 'create': return t('Your role ({{role}}) may not create {{label}}.', { role, label });
    case 'edit': return t('Your role ({{role}}) may not edit {{label}}.', { role, label });
    case 'list': return t('Your role ({{role}}) may not list {{label}}.', { role, label });
    case 'view': return t('Your role ({{role}}) may not view {{label}}.', { role, label });
  }
}

// noAccess says the role reaches no resource (or page) named resource.
function noAccess(t: TFunction<'common'>, resource: string, role: string | undefined): string {
  const builtin = builtinLabel(resource, t);
  if (builtin !== undefined) {
    return role === undefined
      ? t('Your role does not give access to {{builtin}}, or there is no such page.', { builtin })
      : t('Your role ({{role}}) does not give access to {{builtin}}, or there is no such page.', { role, builtin });
  }
  const name = words(resource);
  return role === undefined
    ? t('Your role does not give access to “{{name}}”, or there is no such page.', { name })
    : t('Your role ({{role}}) does not give access to “{{name}}”, or there is no such page.', { role, name });
}

export function NotAllowed({ resource, label, operation }: { resource: string; label?: string; operation?: Operation }) {
  const { t } = useTranslation('common');
  const me = useMe();
  const role = me.data?.role;
  const text = operation ? refusal(t, operation, label ?? builtinLabel(resource, t) ?? words(resource), role) : noAccess(t, resource, role);
  return (
    <section className="not-allowed">
      <div className="page-title">
        <h1>
          <ShieldX size={20} aria-hidden="true" /> {t('Not allowed')}
        </h1>
      </div>
      <p>{text}</p>
      <Link to="/" className="button">{t('Back to the dashboard')}</Link>
    </section>
  );
}
