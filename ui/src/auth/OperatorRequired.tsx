import { useNavigate } from 'react-router';
import { signOut } from './signOut';

// OperatorRequired is what a plain user sees: the panel needs admin or mod.
export function OperatorRequired() {
  const navigate = useNavigate();
  return (
    <main className="auth-page">
      <div className="auth-card stack">
        <h1>Operator role required</h1>
        <p>You are signed in, but only admins and mods can use the admin panel.</p>
        <button type="button" onClick={() => void signOut(() => navigate('/login', { replace: true }))}>
          Sign out
        </button>
      </div>
    </main>
  );
}
