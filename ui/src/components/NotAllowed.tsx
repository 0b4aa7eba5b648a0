import { Link } from 'react-router';
import { ShieldX } from 'lucide-react';
import { useMe } from '../queries';

// NotAllowed is the page for what the operator's role does not reach: a
// resource missing from their catalog (out of a mod's scopes, or no such
// resource: the catalog cannot tell them apart) or an operation the
// resource's permissions refuse.
export function NotAllowed({ resource, label, operation }: { resource: string; label?: string; operation?: string }) {
  const me = useMe();
  const role = me.data?.role;
  const who = role ? `Your role (${role})` : 'Your role';
  const text = operation
    ? `${who} may not ${operation} ${label ?? resource}.`
    : `${who} does not give access to “${resource}”, or there is no such resource.`;
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
