import { Link } from 'react-router';
import { ShieldX } from 'lucide-react';
import { useMe } from '../queries';

// NotAllowed is the page for what the operator's role does not reach: a
// resource missing from their catalog (out of a mod's scopes, or no such
// resource: the catalog cannot tell them apart) or an operation the
// resource's permissions refuse.
// builtinLabels name the panel's own resources, which a mod's catalog
// leaves out: the page says "the audit log", not "adminAudit".
const builtinLabels: Record<string, string> = { adminAudit: 'the audit log', roles: 'Roles', users: 'Users' };

// labelOf names a resource the catalog does not show: a built-in by its
// label, any other key in words ("cloud_saves" → "cloud saves").
export function labelOf(resource: string): string {
  return builtinLabels[resource] ?? resource.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().trim();
}

export function NotAllowed({ resource, label, operation }: { resource: string; label?: string; operation?: string }) {
  const me = useMe();
  const role = me.data?.role;
  const who = role ? `Your role (${role})` : 'Your role';
  const text = operation
    ? `${who} may not ${operation} ${label ?? labelOf(resource)}.`
    : `${who} does not give access to ${builtinLabels[resource] ?? `“${labelOf(resource)}”`}, or there is no such page.`;
  return (
    <section className="not-allowed">
      <div className="page-title">
        <h1>
          <ShieldX size={20} aria-hidden="true" /> Not allowed
        </h1>
      </div>
      <p>{text}</p>
      <Link to="/" className="button">Back to the dashboard</Link>
    </section>
  );
}
