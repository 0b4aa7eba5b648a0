export function Pagination({ page, pageSize, total, estimated, onPage }: {
  page: number;
  pageSize: number;
  total: number;
  estimated: boolean;
  onPage: (p: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const from = total === 0 ? 0 : page * pageSize + 1;
  const to = Math.min(total, (page + 1) * pageSize);
  const approx = estimated ? '≈' : '';
  return (
    <div className="pagination">
      <span className="muted">
        {from}–{to} of {approx}
        {total.toLocaleString()}
      </span>
      <button type="button" disabled={page <= 0} onClick={() => onPage(page - 1)}>Previous</button>
      <span>
        Page {page + 1} of {approx}
        {pages.toLocaleString()}
      </span>
      <button type="button" disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>Next</button>
    </div>
  );
}
