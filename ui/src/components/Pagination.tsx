import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../i18n';

export const pageSizes = [25, 50, 100, 250] as const;

// Pagination shows the window and the total, the page size and a page to
// jump to; an estimated total reads "about N" with a control that asks the
// server to count exactly. A list paged by cursor past its offset pages
// says whether there is a page after and before (hasNext, hasPrevious),
// and how far a jump goes (maxPage, 0-based).
export function Pagination({ page, pageSize, total, estimated, hasNext, hasPrevious, maxPage, onPage, onPageSize, onCountExactly }: {
  page: number;
  pageSize: number;
  total: number;
  estimated: boolean;
  hasNext?: boolean;
  hasPrevious?: boolean;
  maxPage?: number;
  onPage: (p: number) => void;
  onPageSize?: (n: number) => void;
  onCountExactly?: () => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  // The last page a jump reaches; deeper ones by Next.
  const jumpMax = maxPage === undefined ? (estimated ? undefined : pages) : estimated ? maxPage + 1 : Math.min(maxPage + 1, pages);
  const from = total === 0 ? 0 : page * pageSize + 1;
  const to = Math.min(total, (page + 1) * pageSize);
  const { t } = useTranslation('list');
  // The window's bounds and the page keep their digits ungrouped
  // ("10001–10025", "Page 1001"), as the panel always said them; the
  // totals are grouped ("of 1,234,567").
  const plain = (n: number) => formatNumber(n, { useGrouping: false });
  const [jump, setJump] = useState('');
  const go = (e: FormEvent) => {
    e.preventDefault();
    const n = Math.trunc(Number(jump));
    if (!Number.isFinite(n) || n < 1) return;
    // An estimate may be short: allow a page past it, the server answers
    // what is there.
    onPage((jumpMax === undefined ? n : Math.min(n, jumpMax)) - 1);
    setJump('');
  };
  return (
    <div className="pagination">
      <span data-testid="list-total">
        {estimated
          ? t('{{from}}–{{to}} of about {{total}}', { from: plain(from), to: plain(to), total: formatNumber(total) })
          : t('{{from}}–{{to}} of {{total}}', { from: plain(from), to: plain(to), total: formatNumber(total) })}
      </span>
      {estimated && onCountExactly && (
        <button type="button" onClick={onCountExactly}>{t('Count exactly')}</button>
      )}
      {onPageSize && (
        <label className="inline-label">
          {t('Rows per page')}
          <select value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
            {pageSizes.map((n) => (
              <option key={n} value={n}>{formatNumber(n)}</option>
            ))}
          </select>
        </label>
      )}
      <button type="button" disabled={page <= 0 || hasPrevious === false} onClick={() => onPage(page - 1)}>{t('Previous')}</button>
      <span>
        {estimated
          ? t('Page {{page}} of about {{pages}}', { page: plain(page + 1), pages: formatNumber(pages) })
          : t('Page {{page}} of {{pages}}', { page: plain(page + 1), pages: formatNumber(pages) })}
      </span>
      <button type="button" disabled={hasNext === undefined ? page + 1 >= pages && !estimated : !hasNext} onClick={() => onPage(page + 1)}>{t('Next')}</button>
      <form className="jump" onSubmit={go}>
        <label className="inline-label">
          {t('Go to page')}
          <input type="number" min={1} max={jumpMax} title={maxPage === undefined ? undefined : t('Pages past {{page}}: Next, or narrow the list with a filter', { page: formatNumber(maxPage + 1) })} inputMode="numeric" value={jump} onChange={(e) => setJump(e.target.value)} />
        </label>
        <button type="submit" disabled={jump === ''}>{t('Go')}</button>
      </form>
    </div>
  );
}
