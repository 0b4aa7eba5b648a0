import { useState, type FormEvent } from 'react';

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
  const approx = estimated ? 'about ' : '';
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
        {from}–{to} of {approx}
        {total.toLocaleString()}
      </span>
      {estimated && onCountExactly && (
        <button type="button" onClick={onCountExactly}>Count exactly</button>
      )}
      {onPageSize && (
        <label className="inline-label">
          Rows per page
          <select value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
            {pageSizes.map((n) => (
              <option key={n} value={n}>{n}</option>
            ))}
          </select>
        </label>
      )}
      <button type="button" disabled={page <= 0 || hasPrevious === false} onClick={() => onPage(page - 1)}>Previous</button>
      <span>
        Page {page + 1} of {approx}
        {pages.toLocaleString()}
      </span>
      <button type="button" disabled={hasNext === undefined ? page + 1 >= pages && !estimated : !hasNext} onClick={() => onPage(page + 1)}>Next</button>
      <form className="jump" onSubmit={go}>
        <label className="inline-label">
          Go to page
          <input type="number" min={1} max={jumpMax} title={maxPage === undefined ? undefined : `Pages past ${maxPage + 1}: Next, or narrow the list with a filter`} inputMode="numeric" value={jump} onChange={(e) => setJump(e.target.value)} />
        </label>
        <button type="submit" disabled={jump === ''}>Go</button>
      </form>
    </div>
  );
}
