import { useTranslation } from 'react-i18next';
import { errorText } from '../api';

export function Loading() {
  const { t } = useTranslation('common');
  return <p className="muted loading">{t('Loading…')}</p>;
}

export function ErrorNote({ error }: { error: unknown }) {
  return <p className="form-error" role="alert">{errorText(error)}</p>;
}
