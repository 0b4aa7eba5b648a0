package rows

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/gameadmin/admin/internal/audit"
	"github.com/gameadmin/admin/internal/authz"
	"github.com/gameadmin/admin/internal/errbody"
	"github.com/gameadmin/admin/internal/moderation"
	"github.com/gameadmin/admin/internal/query"
	"github.com/gameadmin/admin/internal/schema"
	"github.com/gameadmin/admin/internal/stmtcache"
	"github.com/gameadmin/admin/internal/users"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Store runs the row statements of the write gate and the reads by key:
// one row or several read without their hidden columns, and the insert,
// update and delete of one row inside the caller's transaction, with
// the guards they take (the last admin kept, a user written only by an
// operator who outranks them, an email no other account has, the
// version the client read: Write.IfMatch). The caller writes the audit
// entry in the same transaction.
//
// The rows its writes read and return are rows as stored: every column
// but StoredHidden, whatever the operator's role may read, so that their
// versions (ETag) and audit entries are the same for every role; the
// caller answers them through Resource.Answer.
type Store struct {
	// DB is the panel's database.
	DB *bun.DB
	// Users is the users table: its columns and the email check.
	Users *users.Table
	// Roles is the roles table: the admin and user guards.
	Roles *users.RoleTable
	// Sanctions end an operator's sessions when their email changes.
	Sanctions *moderation.Sanctions
	// Stmts prepares the writes and the locking reads of a transaction
	// it runs (stmtcache.Cache.RunInTx); elsewhere, or when nil, they
	// run with their values inline, through Bun.
	Stmts *stmtcache.Cache
	// Versions makes rows' ETags; nil makes none (and an If-Match other
	// than * matches no row).
	Versions *Versions
	// Now is the time a version column is bumped to (Options.Clock);
	// nil: time.Now.
	Now func() time.Time
}

// Write is what a write of one row checks on the row it locked, before
// anything is written.
type Write struct {
	// IfMatch is the client's If-Match: a row whose version it does not
	// name is refused with 409 conflict carrying the row (Conflict). nil
	// checks nothing.
	IfMatch *Match
	// Check, when given, sees the locked row (as stored) and may refuse.
	Check func(row map[string]any) error
	// Touch, on an update that writes something, sets a time column
	// named updated_at to now unless the update sets it, as the game's
	// own code would.
	Touch bool
}

// now is the Store's clock.
func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// ReadRow loads one row by primary key, without the columns res's role
// may not read (res.Hidden), none masked. lock, inside a transaction,
// locks the row until it ends (FOR UPDATE on PostgreSQL and MySQL; SQLite has one
// writer, and a write transaction holds it).
func (s Store) ReadRow(ctx context.Context, db bun.IDB, res *Resource, id map[string]any, lock bool) (map[string]any, error) {
	row, err := s.readRow(ctx, db, res, id, lock, false)
	if err != nil {
		return nil, err
	}
	res.Unreadable(row)
	return row, nil
}

// readRow loads one row by primary key as stored (without StoredHidden),
// a soft-deleted row too when withDeleted.
func (s Store) readRow(ctx context.Context, db bun.IDB, res *Resource, id map[string]any, lock, withDeleted bool) (map[string]any, error) {
	sel := func(id map[string]any) *bun.SelectQuery {
		q := query.WherePK(query.Select(db, res.Table), res.Table, id)
		if withDeleted && res.Table.SoftDelete != nil {
			q = q.WhereAllWithDeleted()
		}
		if lock && s.DB.Dialect().Name() != dialect.SQLite {
			q = q.For("UPDATE")
		}
		return q
	}
	var found []map[string]any
	var err error
	if tx, ok := db.(bun.Tx); ok && s.Stmts.Retryable(ctx) {
		// The id a parameter: one text for every row of res.
		params, args := query.PKParams(db, res.Table, id, 1)
		var rs *sql.Rows
		if rs, err = s.Stmts.QueryTx(ctx, tx.Tx, sel(params).String(), func() (*sql.Rows, error) { return sel(id).Rows(ctx) }, args...); err != nil {
			return nil, err
		}
		found, err = query.ScanFrom(rs, res.Table, res.stored, nil)
	} else {
		found, err = query.ScanRows(ctx, sel(id), res.Table, res.stored)
	}
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, errbody.New(http.StatusNotFound, "not_found", "no %s row with that id", res.Key).WithParams("resource", res.Key).Because(errNotFound)
	}
	return found[0], nil
}

// errNotFound is the cause of readRow's 404: no row has the id.
var errNotFound = errors.New("rows: no row with that id")

// plainRows runs q's text in tx through Bun (its query hooks see it): a
// write's plain run when it is not prepared (a select has Rows).
func plainRows(ctx context.Context, tx bun.Tx, q fmt.Stringer) func() (*sql.Rows, error) {
	return func() (*sql.Rows, error) {
		// The text as an argument, so that Bun formats nothing in it.
		return tx.QueryContext(ctx, "?", bun.Safe(q.String()))
	}
}

// ReadRows loads the rows with the given primary keys (as DecodeID returns
// them), without hidden columns, in no particular order; ids naming no
// row are left out.
func (s Store) ReadRows(ctx context.Context, res *Resource, ids []map[string]any) ([]map[string]any, error) {
	q := query.Select(s.DB, res.Table)
	if len(res.Table.PK) == 1 {
		c := res.Table.PK[0].Name
		vals := make([]any, len(ids))
		for i, id := range ids {
			vals[i] = id[c]
		}
		q = q.Where("? IN (?)", bun.Ident(c), bun.List(vals))
	} else {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			for _, id := range ids {
				q = q.WhereGroup(" OR ", func(q *bun.SelectQuery) *bun.SelectQuery {
					return query.WherePK(q, res.Table, id)
				})
			}
			return q
		})
	}
	return query.ScanRows(ctx, q, res.Table, res.Hidden)
}

// InsertRow inserts vals (typed column values, keys included or made by
// the database) into res inside tx and returns the new row as stored,
// as the database returns it from the INSERT (no second statement reads
// it). A version column vals and the database leave empty starts at 1,
// or now.
func (s Store) InsertRow(ctx context.Context, tx bun.Tx, res *Resource, vals map[string]any) (map[string]any, error) {
	t := res.Table
	res.firstVersion(vals, s.now())
	if err := s.checkEmailFree(ctx, tx, res, vals, ""); err != nil {
		return nil, err
	}
	cols, args := query.Returning(tx, t)
	insert := func(vals, _ map[string]any) write {
		return tx.NewInsert().Model(&vals).TableExpr("?", bun.Ident(t.Name)).Returning(cols, args...)
	}
	row, err := s.writeReturning(ctx, tx, res, insert, vals, nil)
	if err != nil {
		return nil, ColumnFields(res, sideOf(DBErrorIn(ctx, tx, t.Name, err), insertSide))
	}
	return row, nil
}

// A write is an INSERT or UPDATE of a Bun map model that returns
// query.Returning's columns of one row.
type write interface {
	String() string
	Exec(context.Context, ...any) (sql.Result, error)
}

// writeReturning runs build(vals, id), a write of vals (to the row id,
// for an update) inside tx, and answers the row as stored: the row the
// write returns, read as ReadRow would (sql.ErrNoRows when none), or,
// when a trigger of the table may change it afterwards (schema.Live's
// RewritesRows), the row read again in tx once the write's triggers have
// run. A table without such triggers costs no second statement.
func (s Store) writeReturning(ctx context.Context, tx bun.Tx, res *Resource, build func(vals, id map[string]any) write, vals, id map[string]any) (map[string]any, error) {
	row, err := s.returned(ctx, tx, res, build, vals, id)
	if err != nil || !res.Table.Live().RewritesRows {
		return row, err
	}
	if id == nil {
		// A new row: its key as the write returned it, as the panel
		// names it everywhere (the answer's id). A key the returned
		// row does not show (hidden) leaves the answer as returned.
		if id, err = query.DecodeID(res.Table, query.EncodeID(res.Table, row)); err != nil {
			return row, nil
		}
	}
	stored, err := s.readRow(ctx, tx, res, id, false, true)
	if errors.Is(err, errNotFound) {
		return row, nil // a trigger deleted it: the write's own row is all there is
	}
	return stored, err
}

// updatedMySQL is returned for an UPDATE on MySQL, which has no UPDATE …
// RETURNING: the update runs (prepared as returned's would), then the
// row is read again by its key (the one vals sets, else id) in tx.
func (s Store) updatedMySQL(ctx context.Context, tx bun.Tx, res *Resource, build func(vals, id map[string]any) write, vals, id map[string]any) (map[string]any, error) {
	if params, pk, args, ok := s.bindWrite(ctx, tx, res, vals, id); !ok {
		if _, err := build(vals, id).Exec(ctx); err != nil {
			return nil, err
		}
	} else {
		plain := build(vals, id)
		if _, err := s.Stmts.ExecTx(ctx, tx.Tx, build(params, pk).String(), func() (sql.Result, error) {
			return tx.ExecContext(ctx, "?", bun.Safe(plain.String()))
		}, args...); err != nil {
			return nil, err
		}
	}
	key := maps.Clone(id)
	for _, c := range res.Table.PK {
		if v, set := vals[c.Name]; set {
			key[c.Name] = v
		}
	}
	cols, colArgs := query.Returning(tx, res.Table)
	ret := query.NewReturned(res.Table)
	q := tx.NewSelect().TableExpr("?", bun.Ident(res.Table.Name)).ColumnExpr(cols, colArgs...)
	if err := query.WherePK(q, res.Table, key).Scan(ctx, ret.Dest...); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	return ret.Row(res.stored)
}

// returned runs build(vals, id), a write of vals (to the row id, for an
// update) inside tx, and reads the row it returns as ReadRow would
// (sql.ErrNoRows when none). In a transaction Stmts runs (Retryable) the
// write's text holds placeholders, build(params of query.Bind, params of
// query.PKParams), and runs prepared once it has been seen. Elsewhere, or
// when a value has no parameter form, it runs through Bun with its values
// inline (its hooks see it).
func (s Store) returned(ctx context.Context, tx bun.Tx, res *Resource, build func(vals, id map[string]any) write, vals, id map[string]any) (map[string]any, error) {
	if id != nil && tx.Dialect().Name() == dialect.MySQL {
		return s.updatedMySQL(ctx, tx, res, build, vals, id)
	}
	ret := query.NewReturned(res.Table)
	params, pk, args, ok := s.bindWrite(ctx, tx, res, vals, id)
	if !ok {
		if _, err := build(vals, id).Exec(ctx, ret.Dest...); err != nil {
			return nil, err
		}
		return ret.Row(res.stored)
	}
	rs, err := s.Stmts.QueryTx(ctx, tx.Tx, build(params, pk).String(), plainRows(ctx, tx, build(vals, id)), args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	if rs.Next() {
		if err := rs.Scan(ret.Dest...); err != nil {
			return nil, err
		}
	}
	if err := rs.Close(); err != nil {
		return nil, err
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	return ret.Row(res.stored)
}

// bindWrite is the parameter form of a write of vals (to the row id, for
// an update) that Stmts prepares: vals' parameters (query.Bind), the
// key's (query.PKParams; nil for a new row) and their arguments in
// order. ok is false outside Stmts' transactions (Retryable) or when a
// value has no parameter form: the write then runs with its values
// inline.
func (s Store) bindWrite(ctx context.Context, tx bun.Tx, res *Resource, vals, id map[string]any) (params, pk map[string]any, args []any, ok bool) {
	if !s.Stmts.Retryable(ctx) {
		return nil, nil, nil, false
	}
	if params, args, ok = query.Bind(tx, vals, 1); !ok {
		return nil, nil, nil, false
	}
	if id != nil {
		var pkArgs []any
		pk, pkArgs = query.PKParams(tx, res.Table, id, len(args)+1)
		args = append(args, pkArgs...)
	}
	return params, pk, args, true
}

// checkEmailFree refuses, with 409 conflict, a users row whose new email
// another account has already in any case: sign-in matches emails
// without regard to case, and could not tell the two apart. exceptID is
// the row being updated.
func (s Store) checkEmailFree(ctx context.Context, tx bun.Tx, res *Resource, vals map[string]any, exceptID string) error {
	email, ok := vals[s.Users.Cols.Email].(string)
	if !res.Accounts || !ok {
		return nil
	}
	taken, err := s.Users.EmailTaken(ctx, tx, email, exceptID)
	if err != nil {
		return err
	}
	if taken {
		return errbody.New(http.StatusConflict, "conflict", "another account has the email %q (emails match without regard to case)", errbody.Truncate(email, 80)).WithParams("reason", "email_taken", "email", errbody.Truncate(email, 80))
	}
	return nil
}

// UpdateRow sets vals on the row id of res inside tx, as an edit does:
// the row locked first (so "before" is the row this update replaces), a
// row outside op's row scope missing (404) and vals kept inside it,
// its version checked (w.IfMatch), w.Check, the admin and user guards,
// the operator's sessions ended when their email changes. A value the
// locked row holds already is not written, nor a JSON document a
// DocEdit leaves as it is; a DocEdit is applied to the stored document
// in the UPDATE itself; a version column is bumped (and with w.Touch an
// updated_at set) when something is written. before and after are the
// row as stored; changes are the columns that changed (audit.Changes),
// for the audit entry the caller writes in tx; ended is the user whose
// sessions the update ended (or ""), whose live connections the caller
// closes once tx commits (Sanctions.SessionsEnded).
func (s Store) UpdateRow(ctx context.Context, tx bun.Tx, op authz.Operator, res *Resource, id, vals map[string]any, w Write) (before, after, changes map[string]any, ended string, err error) {
	keepsAdmin := func() error { return nil }
	if res.Key == "roles" {
		if keepsAdmin, err = s.Roles.GuardAdmins(ctx, tx); err != nil {
			return nil, nil, nil, "", err
		}
	}
	if before, err = s.readRow(ctx, tx, res, id, true, false); err != nil {
		return nil, nil, nil, "", err
	}
	// A row outside op's row scope is missing; one it may touch is not
	// moved out of it (scope.go).
	if !res.InScope(before, op) {
		return nil, nil, nil, "", res.Missing()
	}
	if err := res.CheckScope(vals, op); err != nil {
		return nil, nil, nil, "", err
	}
	if err := s.checkMatch(res, w.IfMatch, before); err != nil {
		return nil, nil, nil, "", err
	}
	if w.Check != nil {
		if err := w.Check(before); err != nil {
			return nil, nil, nil, "", err
		}
	}
	userID, isUser := UserRowID(res, before)
	var target authz.Role
	if isUser {
		if target, err = s.Roles.CanWriteUser(ctx, tx, op, userID); err != nil {
			return nil, nil, nil, "", err
		}
	}
	dropUnchanged(before, vals)
	docs, err := docWrites(tx, res, before, vals)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if err := KeepMisfits(res, before, vals); err != nil {
		return nil, nil, nil, "", err
	}
	if len(vals) == 0 {
		return before, before, nil, "", nil
	}
	res.bumpVersion(before, vals, s.now())
	if w.Touch {
		touch(res, vals)
	}
	if err := s.checkEmailFree(ctx, tx, res, vals, userID); err != nil {
		return nil, nil, nil, "", err
	}
	write := vals
	if docs != nil {
		write = maps.Clone(vals)
		for _, col := range slices.Sorted(maps.Keys(docs)) {
			exprs := docs[col]
			for _, e := range exprs[:len(exprs)-1] {
				// A long edit: its first parts in statements of their own.
				q := tx.NewUpdate().TableExpr("?", bun.Ident(res.Table.Name)).Set("? = ?", bun.Ident(col), e)
				if _, err := query.WherePK(q, res.Table, id).Exec(ctx); err != nil {
					return nil, nil, nil, "", ColumnFields(res, DBErrorIn(ctx, tx, res.Table.Name, err))
				}
			}
			write[col] = exprs[len(exprs)-1]
		}
	}
	if after, err = s.writeReturning(ctx, tx, res, s.update(tx, res), write, id); err != nil {
		return nil, nil, nil, "", ColumnFields(res, DBErrorIn(ctx, tx, res.Table.Name, err))
	}
	if err := keepsAdmin(); err != nil {
		return nil, nil, nil, "", err
	}
	// A new email on an operator's account ends its sessions: whoever
	// holds them signed in as the old address.
	if e, ok := vals["email"]; ok && isUser && target.IsOperator() && e != before["email"] && userID != op.UserID && s.Users.HasTokenVersion {
		if err := s.Sanctions.BumpTokenVersion(ctx, tx, userID); err != nil {
			return nil, nil, nil, "", err
		}
		// The row as it is now, token version and all.
		if after, err = s.readRow(ctx, tx, res, id, false, false); err != nil {
			return nil, nil, nil, "", err
		}
		ended = userID
	}
	return before, after, audit.Changes(before, after), ended, nil
}

// dropUnchanged takes out of vals the values the row (before, as stored)
// holds already, compared as JSON (SameValue): a PUT of the row as read
// writes none of the fields it did not change.
func dropUnchanged(before, vals map[string]any) {
	for k, v := range vals {
		if _, isEdit := v.(DocEdit); isEdit {
			continue
		}
		if b, ok := before[k]; ok && SameValue(b, v) {
			delete(vals, k)
		}
	}
}

// SameValue reports whether x and y are the same value as JSON: their
// encodings equal once decoded (numbers exact) and encoded again, so a
// stored document's spacing and key order do not count, nor the Go
// types of equal numbers and times.
func SameValue(x, y any) bool {
	bx, errx := json.Marshal(x)
	by, erry := json.Marshal(y)
	if errx != nil || erry != nil {
		return false
	}
	if bytes.Equal(bx, by) {
		return true
	}
	if !isDoc(x) && !isDoc(y) {
		return false // a scalar encodes one way: unequal bytes, unequal values
	}
	dx, errx := DecodeDoc(json.RawMessage(bx))
	dy, erry := DecodeDoc(json.RawMessage(by))
	return errx == nil && erry == nil && sameDoc(dx, dy)
}

// isDoc reports whether v is a JSON document whose encoding may vary
// (spacing, key order): a stored one, or one decoded from a body.
func isDoc(v any) bool {
	switch v.(type) {
	case json.RawMessage, map[string]any, []any:
		return true
	}
	return false
}

// touch sets a time column named updated_at in vals, an update's values,
// to now unless vals sets it: when a row changes, as the game's own code
// would.
func touch(res *Resource, vals map[string]any) {
	c := res.Table.ByName["updated_at"]
	if c == nil || c.DataType != schema.Datetime && c.Unix == "" {
		return
	}
	if _, set := vals[c.Name]; !set {
		vals[c.Name] = c.UnixValue(time.Now().UTC()) // the time, or a unix time's integer
	}
}

// update builds the UPDATE of a row of res that returns it, for
// writeReturning.
func (s Store) update(tx bun.Tx, res *Resource) func(vals, id map[string]any) write {
	cols, args := query.Returning(tx, res.Table)
	return func(vals, id map[string]any) write {
		q := tx.NewUpdate().Model(&vals).TableExpr("?", bun.Ident(res.Table.Name)).Returning(cols, args...)
		return query.WherePK(q, res.Table, id)
	}
}

// DeleteRow deletes the row id of res inside tx, as DELETE does, and
// returns it as stored: a row outside op's row scope missing (404), the
// admin and user guards, and the row's version
// (w.IfMatch) and w.Check on the locked row before the delete. A soft
// delete bumps the version column.
func (s Store) DeleteRow(ctx context.Context, tx bun.Tx, op authz.Operator, res *Resource, id map[string]any, w Write) (row map[string]any, err error) {
	keepsAdmin := func() error { return nil }
	if touchesAdmins(res) {
		if keepsAdmin, err = s.Roles.GuardAdmins(ctx, tx); err != nil {
			return nil, err
		}
	}
	if row, err = s.readRow(ctx, tx, res, id, true, false); err != nil {
		return nil, err
	}
	if !res.InScope(row, op) {
		return nil, res.Missing()
	}
	if err := s.checkMatch(res, w.IfMatch, row); err != nil {
		return nil, err
	}
	if w.Check != nil {
		if err := w.Check(row); err != nil {
			return nil, err
		}
	}
	if userID, ok := UserRowID(res, row); ok {
		if _, err := s.Roles.CanWriteUser(ctx, tx, op, userID); err != nil {
			return nil, err
		}
	}
	if sd := res.Table.SoftDelete; sd != nil {
		// A soft-delete model's row is deleted as the game deletes it:
		// its soft-delete column set, the row kept (RestoreRow).
		var now any = time.Now().UTC()
		if sd.DataType == schema.Integer {
			now = time.Now().UnixNano() // as Bun sets an integer one
		}
		if row, err = s.setDeleted(ctx, tx, res, id, row, now); err != nil {
			return nil, err
		}
	} else {
		q := tx.NewDelete().TableExpr("?", bun.Ident(res.Table.Name))
		if _, err := query.WherePK(q, res.Table, id).Exec(ctx); err != nil {
			return nil, ColumnFields(res, sideOf(DBErrorIn(ctx, tx, res.Table.Name, err), deleteSide))
		}
	}
	if err := keepsAdmin(); err != nil {
		return nil, err
	}
	return row, nil
}

// setDeleted sets (at) or clears (nil) the soft-delete column of the row
// id of res inside tx (before, as stored), bumping its version column,
// and returns the row as it is then.
func (s Store) setDeleted(ctx context.Context, tx bun.Tx, res *Resource, id, before map[string]any, at any) (map[string]any, error) {
	vals := map[string]any{res.Table.SoftDelete.Name: at}
	res.bumpVersion(before, vals, s.now())
	row, err := s.writeReturning(ctx, tx, res, s.update(tx, res), vals, id)
	if err != nil {
		return nil, ColumnFields(res, DBErrorIn(ctx, tx, res.Table.Name, err))
	}
	return row, nil
}

// RestoreRow undoes the soft delete of the row id of res inside tx, with
// the user guard a write takes and the row's version (w.IfMatch) and
// w.Check on the locked row, and returns the row restored, as stored: 404
// for no row, 409 not_deleted for a row that is not deleted, 400 for a
// resource without a soft-delete column.
func (s Store) RestoreRow(ctx context.Context, tx bun.Tx, op authz.Operator, res *Resource, id map[string]any, w Write) (map[string]any, error) {
	sd := res.Table.SoftDelete
	if sd == nil {
		return nil, errbody.New(http.StatusBadRequest, "not_soft_delete", "%s rows are deleted for good: there is nothing to restore", res.Key)
	}
	row, err := s.readRow(ctx, tx, res, id, true, true)
	if err != nil {
		return nil, err
	}
	if !res.InScope(row, op) {
		return nil, res.Missing()
	}
	if err := s.checkMatch(res, w.IfMatch, row); err != nil {
		return nil, err
	}
	if w.Check != nil {
		if err := w.Check(row); err != nil {
			return nil, err
		}
	}
	if row[sd.Name] == nil {
		return nil, errbody.New(http.StatusConflict, "not_deleted", "the row is not deleted: nothing to restore")
	}
	if userID, ok := UserRowID(res, row); ok {
		if _, err := s.Roles.CanWriteUser(ctx, tx, op, userID); err != nil {
			return nil, err
		}
	}
	return s.setDeleted(ctx, tx, res, id, row, nil)
}

// UserRowID is the id of a users row as the Auth API takes it.
func UserRowID(res *Resource, row map[string]any) (string, bool) {
	if !res.Accounts || len(res.Table.PK) != 1 {
		return "", false
	}
	return fmt.Sprint(row[res.Table.PK[0].Name]), true
}

// touchesAdmins reports whether a write to res can take away an admin:
// deleting a user (its role goes with it) or a roles row, or editing one.
func touchesAdmins(res *Resource) bool {
	return res.Accounts || res.Key == "roles"
}
