import { useState, type FormEvent } from 'react';

export const pageSizes = [25, 50, 100, 250] as const;

// Pagination shows the window and the total, the page size and a page to
// jump to; an estimated total reads "about N" with a control that asks the
// server to count exactly.
export function Pagination({ page, pageSize, total, estimated, onPage, onPageSize, onCountExactly }: {
  page: number;
  pageSize: number;
  total: number;
  estimated: boolean;
  onPage: (p: number) => void;
  onPageSize?: (n: number) => void;
  onCountExactly?: () => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
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
    onPage((estimated ? n : Math.min(n, pages)) - 1);
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
      <button type="button" disabled={page <= 0} onClick={() => onPage(page - 1)}>Previous</button>
      <span>
        Page {page + 1} of {approx}
        {pages.toLocaleString()}
      </span>
      <button type="button" disabled={page + 1 >= pages && !estimated} onClick={() => onPage(page + 1)}>Next</button>
      <form className="jump" onSubmit={go}>
        <label className="inline-label">
          Go to page
          <input type="number" min={1} max={estimated ? undefined : pages} inputMode="numeric" value={jump} onChange={(e) => setJump(e.target.value)} />
        </label>
        <button type="submit" disabled={jump === ''}>Go</button>
      </form>
    </div>
  );
}
