// Pagination shows the window and the total; an estimated total reads
// "about N" with a control that asks the server to count exactly.
export function Pagination({ page, pageSize, total, estimated, onPage, onCountExactly }: {
  page: number;
  pageSize: number;
  total: number;
  estimated: boolean;
  onPage: (p: number) => void;
  onCountExactly?: () => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const from = total === 0 ? 0 : page * pageSize + 1;
  const to = Math.min(total, (page + 1) * pageSize);
  const approx = estimated ? 'about ' : '';
  return (
    <div className="pagination">
      <span className="muted">
        {from}–{to} of {approx}
        {total.toLocaleString()}
      </span>
      {estimated && onCountExactly && (
        <button type="button" onClick={onCountExactly}>Count exactly</button>
      )}
      <button type="button" disabled={page <= 0} onClick={() => onPage(page - 1)}>Previous</button>
      <span>
        Page {page + 1} of {approx}
        {pages.toLocaleString()}
      </span>
      <button type="button" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </div>
  );
}
