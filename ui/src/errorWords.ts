import i18n, { formatNumber } from './i18n';

// The server's refusals in the operator's language (the errors
// namespace). The server says each in English (error, fields) with a
// stable code and the values it names (params; problems for the fields
// of a form: docs/api.md, "Errors"). English shows the server's own
// words, the most specific; another language says the code with its
// params through these keys (each the server's English, so the English
// catalog reads much as the server does), or, for a refusal it does not
// know, the server's English after all.

export type Params = Record<string, unknown>;

// FieldProblem is what is wrong with one field of a form: a stable code
// and the values it names.
export interface FieldProblem {
  code: string;
  params: Params;
}

const text = (v: unknown) => (typeof v === 'number' ? formatNumber(v) : String(v ?? ''));
const list = (v: unknown, type: 'conjunction' | 'disjunction') =>
  Array.isArray(v) ? new Intl.ListFormat(i18n.language, { type }).format(v.map((x) => String(x))) : text(v);
// quote puts a value in the language's quotation marks.
const quote = (v: unknown) => i18n.t('“{{value}}”', { ns: 'errors', value: String(v) });
const quotedList = (v: unknown, type: 'conjunction' | 'disjunction') =>
  Array.isArray(v) ? list(v.map((x) => (x === '' ? '""' : quote(x))), type) : quote(v);
const time = (v: unknown) => {
  const d = new Date(String(v));
  return Number.isNaN(d.getTime()) ? text(v) : new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
};

// fixedText says a refusal that names nothing (its message is all of it).
function fixedText(message: string): string | undefined {
  const t = i18n.getFixedT(null, 'errors');
  switch (message) {
    case 'sign-in required': return t('sign-in required');
    case 'invalid email or password': return t('invalid email or password');
    case 'this account is banned': return t('this account is banned');
    case 'an admin exists already; bootstrap is closed': return t('an admin exists already; bootstrap is closed');
    case 'the sign-in step has expired; sign in again': return t('the sign-in step has expired; sign in again');
    case 'the code is wrong, expired or already used': return t('the code is wrong, expired or already used');
    case 'the reset token is invalid, expired or already used': return t('the reset token is invalid, expired or already used');
    case 'the current password is wrong': return t('the current password is wrong');
    case 'two-factor sign-in is on already; disable it first': return t('two-factor sign-in is on already; disable it first');
    case 'set up two-factor sign-in on your account page first': return t('set up two-factor sign-in on your account page first');
    case 'two-factor sign-in is not on for this account': return t('two-factor sign-in is not on for this account');
    case 'start enrolment first': return t('start enrolment first');
    case 'cross-origin request refused': return t('cross-origin request refused');
    case 'the admin panel is shutting down': return t('the admin panel is shutting down');
    case 'internal error': return t('internal error');
    case 'not found': return t('not found');
    case 'no such user': return t('no such user');
    case 'method not allowed': return t('method not allowed');
    case 'rate limiter unavailable; try again shortly': return t('rate limiter unavailable; try again shortly');
    case 'the last admin cannot be removed or demoted; make another admin first': return t('the last admin cannot be removed or demoted; make another admin first');
    case 'this is the last admin: make another admin first': return t('this is the last admin: make another admin first');
    case "this player has no open reports (resolved meanwhile?)": return t('this player has no open reports (resolved meanwhile?)');
    case "no one holds this player's reports (released or resolved meanwhile?)": return t("no one holds this player's reports (released or resolved meanwhile?)");
    case 'an export of yours is still running; wait for it to finish': return t('an export of yours is still running; wait for it to finish');
    case 'reports are off: the game declares no report categories': return t('reports are off: the game declares no report categories');
    case 'the row is not deleted: nothing to restore': return t('the row is not deleted: nothing to restore');
    case 'the users table has no email column: reset links and invites are sent by email, so they are off': return t('the users table has no email column: reset links and invites are sent by email, so they are off');
    case 'this account has no email: an invite is sent by email': return t('this account has no email: an invite is sent by email');
    case 'the users table has no token_version column': return t('the users table has no token_version column');
    case 'the users table needs a token_version column to revoke sessions': return t('the users table needs a token_version column to revoke sessions');
    case 'the users table needs ban and token_version columns for moderation': return t('the users table needs ban and token_version columns for moderation');
    case 'warnings are notes on the player: the panel needs the built-in userNotes table': return t('warnings are notes on the player: the panel needs the built-in userNotes table');
    case 'several accounts have this email in different case; type it exactly as stored': return t('several accounts have this email in different case; type it exactly as stored');
    case 'several accounts have this username': return t('several accounts have this username');
    case 'the change breaks a constraint of the table': return t('the change breaks a constraint of the table');
    case 'the referenced row does not exist, or other rows refer to this one': return t('the referenced row does not exist, or other rows refer to this one');
    case 'a value does not fit its column': return t('a value does not fit its column');
    case 'a column that cannot be null was null': return t('a column that cannot be null was null');
    case 'a column the database generates cannot be written': return t('a column the database generates cannot be written');
    case 'the database does not take this write: the resource is a view or a table it cannot update, so it is read-only': return t('the database does not take this write: the resource is a view or a table it cannot update, so it is read-only');
    case 'no live rooms are configured (Options.Rooms)': return t('no live rooms are configured (Options.Rooms)');
    case 'no such room': return t('no such room');
    case 'room not found': return t('room not found');
    case 'no such session in the room': return t('no such session in the room');
    case 'the node that owns this room did not answer in time': return t('the node that owns this room did not answer in time');
    case 'the node that owns this room cannot be reached; try again shortly': return t('the node that owns this room cannot be reached; try again shortly');
    case 'email is not a valid address': return t('email is not a valid address');
    case 'displayName is longer than 200 characters': return t('displayName is longer than 200 characters');
    case 'until must be in the future': return t('until must be in the future');
    case 'give until or preset, not both': return t('give until or preset, not both');
    case 'a ban needs ban: {until or preset, reason}': return t('a ban needs ban: {until or preset, reason}');
    case 'a warning needs its note': return t('a warning needs its note');
    case 'ban is for the ban outcome only': return t('ban is for the ban outcome only');
    case 'select the players first': return t('select the players first');
    case 'login is required (an email or a username)': return t('login is required (an email or a username)');
    case 'the users table has no email column': return t('the users table has no email column');
    case 'the users table has no username column (UserColumns.Username)': return t('the users table has no username column (UserColumns.Username)');
    case 'username is required: the users table has no email column': return t('username is required: the users table has no email column');
    case 'current and new are required': return t('current and new are required');
    case 'token and password are required': return t('token and password are required');
    case 'give either code or RecoveryCode': return t('give either code or RecoveryCode');
    case 'values must be a list of text values, or null': return t('values must be a list of text values, or null');
    case 'values is required: a list of the scope column\'s values, or null for every row': return t("values is required: a list of the scope column's values, or null for every row");
    case 'path must name a part of the state; the whole state cannot be replaced or deleted': return t('path must name a part of the state; the whole state cannot be replaced or deleted');
    case 'the room is full': return t('the room is full');
    case 'the room is locked': return t('the room is locked');
    case 'malformed JSON body': return t('malformed JSON body');
    case 'the request body is not valid': return t('the request body is not valid');
    case 'a row with that unique value exists already': return t('a row with that unique value exists already');
    case 'a per-row action needs {id}': return t('a per-row action needs {id}');
    case 'path and value are required': return t('path and value are required');
    case 'password is longer than the 72 bytes bcrypt reads': return t('password is longer than the 72 bytes bcrypt reads');
    case "the live rooms did not answer within the panel's time limit (RoomTimeout); the room may be busy: try again": return t("the live rooms did not answer within the panel's time limit (RoomTimeout); the room may be busy: try again");
    case "the live rooms failed: the game's code broke while serving the request (its cause is in the server's log); the room runs on for its players": return t("the live rooms failed: the game's code broke while serving the request (its cause is in the server's log); the room runs on for its players");
    case 'reason and until are for ban only': return t('reason and until are for ban only');
    case "a player's data requests are for admins": return t("a player's data requests are for admins");
    case 'exports are for admins and mods': return t('exports are for admins and mods');
    case "only an admin can change an operator's account": return t("only an admin can change an operator's account");
    case "only an admin can kick an operator's session": return t("only an admin can kick an operator's session");
    case 'only an admin can reset two-factor sign-in': return t('only an admin can reset two-factor sign-in');
    case 'only an admin can see or set a row scope': return t('only an admin can see or set a row scope');
    case 'only an admin can send an invite': return t('only an admin can send an invite');
    case 'only an admin may force a revert over later changes': return t('only an admin may force a revert over later changes');
    case "only an admin may take over another moderator's claim": return t("only an admin may take over another moderator's claim");
  }
  return undefined;
}

// paramText says a refusal by its code and params.
function paramText(code: string, p: Params, message: string): string | undefined {
  const t = i18n.getFixedT(null, 'errors');
  switch (code) {
    case 'rate_limited':
      if (p.running !== undefined) return t('{{running}} searches, exact counts or exports of yours are running; retry when one has finished', { running: text(p.running) });
      if (p.retryAfterSec !== undefined) return t('too many requests; retry in {{retryAfterSec}} s', { retryAfterSec: text(p.retryAfterSec) });
      return undefined;
    case 'claimed':
      if (p.since === undefined) return t("another moderator took this player's reports meanwhile");
      if (!p.by) return t("another moderator has been working on this player's reports since {{since}}", { since: time(p.since) });
      return t("{{by}} has been working on this player's reports since {{since}}", { by: text(p.by), since: time(p.since) });
    case 'query_timeout':
      if (p.reason === 'timeout') return t('the query took longer than the panel allows; narrow the filter (an exact value, a shorter time range, a column with an index) or count with _count=estimate, and try again');
      if (p.reason === 'busy') return t("the panel's share of the database was taken by other operators' work for longer than the panel waits; try again in a moment");
      return undefined;
    case 'body_too_large':
      return p.limit === undefined ? undefined : t('request body is larger than {{limit}} bytes', { limit: text(p.limit) });
    case 'password_too_short':
      return p.min === undefined ? undefined : t('password must be at least {{min}} characters', { min: text(p.min) });
    case 'password_too_long':
      return p.max === undefined ? undefined : t('password is longer than {{max}} bytes', { max: text(p.max) });
    case 'missing_field':
      if (Array.isArray(p.fields)) return t('{{fields}} are required', { fields: list(p.fields, 'conjunction') });
      return p.field === undefined ? undefined : t('{{field}} is required', { field: text(p.field) });
    case 'unknown_field':
      if (Array.isArray(p.fields)) return undefined;
      return p.field === undefined ? undefined : t('unknown field "{{field}}"', { field: text(p.field) });
    case 'invalid_value':
      if (p.field === 'locale') return t('locale must be one of {{accepted}}, or "" for the browser\'s language', { accepted: quotedList(p.accepted, 'disjunction') });
      if (Array.isArray(p.accepted)) return t('{{field}} must be {{accepted}}', { field: text(p.field), accepted: list(p.accepted, 'disjunction') });
      if (p.expected !== undefined) return t('field "{{field}}" must be {{expected}}', { field: text(p.field), expected: jsonType(p.expected) });
      if (p.min !== undefined && p.max !== undefined) return t('{{field}} must be a whole number from {{min}} to {{max}}', { field: text(p.field), min: text(p.min), max: text(p.max) });
      if (p.field === 'ids' && p.max !== undefined) return t('at most {{max}} ids at once', { max: text(p.max) });
      if (p.max !== undefined) return t('{{field}} is longer than {{max}} characters', { field: text(p.field), max: text(p.max) });
      return undefined;
    case 'not_found':
      if (p.auditId !== undefined) return t('no entry {{auditId}} in the history of this row', { auditId: String(p.auditId) });
      if (p.resource !== undefined && message.includes('has no primary key')) return t('"{{resource}}" has no primary key: its rows have no page of their own', { resource: text(p.resource) });
      if (p.resource !== undefined) return t('no {{resource}} row with that id', { resource: text(p.resource) });
      return undefined;
    case 'unknown_resource':
      return p.resource === undefined ? undefined : t('no resource "{{resource}}"', { resource: text(p.resource) });
    case 'self_moderation':
      switch (p.reason) {
        case 'erase': return t('you cannot erase your own account');
        case 'moderate': return t('you cannot moderate your own account here');
        case 'reports': return t('you cannot work reports about your own account');
        case 'kick': return t('you cannot kick your own session');
      }
      return undefined;
    case 'forbidden':
      return forbiddenText(p);
    case 'conflict':
      switch (p.reason) {
        case 'changed': return t('the row changed since you read it: nothing was written; the answer has the row as it is now');
        case 'unique':
          if (Array.isArray(p.columns)) return t('another row has that {{columns}} already', { columns: quotedList(p.columns, 'conjunction') });
          if (p.constraint) return t('a row with that unique value exists already (constraint "{{constraint}}")', { constraint: text(p.constraint) });
          return t('a row with that unique value exists already');
        case 'revert_changed': return t('the row changed since entry {{auditId}} ({{columns}}): an admin may force the revert', { auditId: String(p.auditId), columns: list(p.columns, 'conjunction') });
        case 'revert_exists': return t('the row exists again since entry {{auditId}}: nothing to re-create', { auditId: String(p.auditId) });
        case 'revert_misfit': return t('column "{{column}}": its logged value no longer fits the column', { column: text(p.column) });
        case 'email_taken': return t('another account has the email "{{email}}" (emails match without regard to case)', { email: text(p.email) });
      }
      return undefined;
  }
  return undefined;
}

// jsonType names a JSON type a field must be.
function jsonType(type: unknown): string {
  const t = i18n.getFixedT(null, 'errors');
  switch (type) {
    case 'string': return t('a string');
    case 'number': return t('a number');
    case 'boolean': return t('true or false');
    case 'array': return t('an array');
    case 'object': return t('an object');
    case 'integer': return t('a whole number');
    case 'time': return t('a time');
    case 'value': return t('a value');
  }
  return text(type);
}

// opWords names an operation a role may be refused.
function opWords(op: unknown): string {
  const t = i18n.getFixedT(null, 'errors');
  switch (op) {
    case 'list': return t('list');
    case 'read': return t('read');
    case 'create': return t('create');
    case 'update': return t('update');
    case 'delete': return t('delete');
  }
  return text(op);
}

function forbiddenText(p: Params): string | undefined {
  const t = i18n.getFixedT(null, 'errors');
  switch (p.reason) {
    case 'permission': return t('{{op}} on "{{resource}}" is not allowed for role "{{role}}"', { op: opWords(p.op), resource: text(p.resource), role: text(p.role) });
    case 'action': return t('action "{{action}}" is not allowed for role "{{role}}"', { action: text(p.action), role: text(p.role) });
    case 'column_not_readable': return t('column "{{column}}" is not readable for your role', { column: text(p.column) });
    case 'column_not_writable': return t('column "{{column}}" is not writable for your role', { column: text(p.column) });
    case 'relation_not_readable': return t('relation "{{relation}}" is keyed by column "{{column}}", which is not readable for your role', { relation: text(p.relation), column: text(p.column) });
    case 'audit_payload': return t('audit entries cannot be filtered or sorted by payload for your role: it holds values your role may not read');
    case 'role': return t("requires role '{{required}}' or higher (you have '{{role}}')", { required: text(p.required), role: text(p.role) });
    case 'operator_only': return t('an operator role (admin or mod) is required');
    case 'admin_only': return t('only an admin may do this');
  }
  return undefined;
}

// problemWords says a field's problem without the field's name: the form
// shows it under the field.
export function problemWords(problem: FieldProblem): string | undefined {
  const t = i18n.getFixedT(null, 'errors');
  const p = problem.params ?? {};
  switch (problem.code) {
    case 'required':
    case 'missing_value':
    case 'missing_field': return t('Required');
    case 'too_long': return t('At most {{max}} characters', { max: text(p.max) });
    case 'empty': return t('Cannot be empty');
    case 'not_a_choice': return t('"{{value}}" is not one of the choices', { value: text(p.value) });
    case 'unknown_label': return t('"{{value}}" is not one of {{labels}}', { value: text(p.value), labels: quotedList(p.labels, 'disjunction') });
    case 'not_an_integer': return t('Must be a whole number');
    case 'not_a_number': return t('Must be a number');
    case 'not_a_boolean': return t('Must be yes or no');
    case 'not_a_time': return t('Must be a date and time, like 2026-12-04 18:00');
    case 'not_a_date': return t('"{{value}}" is not a date like 2006-01-02', { value: text(p.value) });
    case 'not_a_wall_time': return t('"{{value}}" is not a wall-clock time such as 2006-01-02T15:04:05 (this column has no time zone)', { value: text(p.value) });
    case 'not_a_uuid': return t('Must be an id like 123e4567-e89b-12d3-a456-426614174000');
    case 'not_base64': return t('Must be base64 data');
    case 'not_json': return t('Must be JSON');
    case 'not_text': return t('Must be text');
    case 'not_an_address': return t('"{{value}}" is not an address of this kind', { value: text(p.value) });
    case 'not_an_array': return t('Must be a list');
    case 'too_many_decimals': return p.max === 0 ? t('A whole number, without decimals') : t('At most {{max}} decimal places', { max: text(p.max) });
    case 'too_many_digits': return t('Too large: at most {{max}} digits before the decimal point', { max: text(p.max) });
    case 'wrong_shape': return t('The value does not have the shape this field takes');
    case 'not_unique': return t('Already taken: another row has this value');
    case 'no_such_row':
    case 'invalid_reference': return t('The row it names does not exist');
    case 'not_valid':
    case 'invalid_value': return t('Not a value this field takes');
    case 'check_failed': return p.constraint ? t('Breaks the check constraint "{{constraint}}"', { constraint: text(p.constraint) }) : t('A value breaks a check constraint');
    case 'read_only': return t('Read-only');
    case 'not_writable':
    case 'forbidden': return t('Not writable for your role');
    case 'unknown_column': return t('Not a column of this table');
    case 'out_of_scope': return t('Outside the rows your role may change');
  }
  return undefined;
}

// fieldLabel is the label the server's English message about a field
// starts with ("Name is required", "Name: at most 32 characters"), else
// the column's name.
function fieldLabel(column: string, message: string | undefined): string {
  const m = message ? /^(.+?)(?: is required| is read-only|: )/.exec(message) : null;
  return m?.[1] ?? column;
}

// validationText says the problems of a form's fields, each after its
// field's label.
function validationText(problems: Record<string, FieldProblem>, fields: Record<string, string>): string | undefined {
  const t = i18n.getFixedT(null, 'errors');
  const said: string[] = [];
  for (const [column, problem] of Object.entries(problems)) {
    const words = problemWords(problem);
    if (words === undefined) return undefined;
    said.push(t('{{label}}: {{problem}}', { label: fieldLabel(column, fields[column]), problem: words }));
  }
  if (said.length === 0) return undefined;
  if (said.length === 1) return said[0];
  return t('{{count}} fields need attention: {{problems}}', { count: said.length, problems: said.join('; ') });
}

// roomText says a live room's call that failed (room_timeout,
// room_failed), whose message names the room (`room "<id>"`).
function roomText(code: string, message: string): string | undefined {
  const t = i18n.getFixedT(null, 'errors');
  const room = /^room "(.*)" (?:did not answer|failed: )/.exec(message)?.[1];
  if (room === undefined) return undefined;
  if (code === 'room_timeout') return t('room "{{room}}" did not answer within the panel\'s time limit (RoomTimeout); the room may be busy: try again', { room });
  if (code === 'room_failed') return t('room "{{room}}" failed: the game\'s code broke while serving the request (its cause is in the server\'s log); the room runs on for its players', { room });
  return undefined;
}

// byCode is the one message of a code that has one, for a refusal whose
// words the panel does not know (a server newer than the panel).
const byCode: Record<string, string> = {
  unauthenticated: 'sign-in required',
  cross_origin: 'cross-origin request refused',
  banned: 'this account is banned',
  closed: 'the admin panel is shutting down',
  internal: 'internal error',
  invalid_json: 'malformed JSON body',
  invalid_body: 'the request body is not valid',
  wrong_password: 'the current password is wrong',
  invalid_credentials: 'invalid email or password',
  invalid_code: 'the code is wrong, expired or already used',
  invalid_challenge: 'the sign-in step has expired; sign in again',
  invalid_token: 'the reset token is invalid, expired or already used',
  bootstrap_closed: 'an admin exists already; bootstrap is closed',
  totp_already_enabled: 'two-factor sign-in is on already; disable it first',
  totp_enrollment_required: 'set up two-factor sign-in on your account page first',
  totp_not_enabled: 'two-factor sign-in is not on for this account',
  totp_not_enrolling: 'start enrolment first',
  rate_limiter_unavailable: 'rate limiter unavailable; try again shortly',
  rooms_unsupported: 'no live rooms are configured (Options.Rooms)',
  room_not_found: 'no such room',
  session_not_found: 'no such session in the room',
  node_timeout: 'the node that owns this room did not answer in time',
  node_unavailable: 'the node that owns this room cannot be reached; try again shortly',
  reports_off: 'reports are off: the game declares no report categories',
  no_open_reports: 'this player has no open reports (resolved meanwhile?)',
  not_claimed: "no one holds this player's reports (released or resolved meanwhile?)",
  export_in_progress: 'an export of yours is still running; wait for it to finish',
  not_deleted: 'the row is not deleted: nothing to restore',
  last_admin: 'the last admin cannot be removed or demoted; make another admin first',
  method_not_allowed: 'method not allowed',
};

// serverText says a refusal of the server in the operator's language, or
// undefined when it has no words for it (the server's English then): by
// its message when that names nothing, else by its code and params, else
// by its fields' problems, else by the one message of its code.
export function serverText(e: { code: string; message: string; params: Params; problems: Record<string, FieldProblem>; fields: Record<string, string> }): string | undefined {
  if (e.code === 'validation') return validationText(e.problems, e.fields);
  const one = byCode[e.code];
  return (
    fixedText(e.message) ??
    paramText(e.code, e.params, e.message) ??
    roomText(e.code, e.message) ??
    (Object.keys(e.problems).length > 0 ? validationText(e.problems, e.fields) : undefined) ??
    (one === undefined ? undefined : fixedText(one))
  );
}
