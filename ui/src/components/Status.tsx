import { errorText } from '../api';

export function Loading() {
  return <p className="muted loading">Loading…</p>;
}

export function ErrorNote({ error }: { error: unknown }) {
  return <p className="form-error" role="alert">{errorText(error)}</p>;
}
