import { cloneElement, isValidElement, useState, type ReactElement } from 'react';
import * as Switch from '@radix-ui/react-switch';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { Column } from '../api';
import { useCatalog } from '../queries';
import { ForeignKeyPicker } from '../components/ForeignKeyPicker';
import { JsonEditor } from '../components/JsonEditor';
import { ArrayEditor } from '../components/ArrayEditor';
import { FieldError, formatDecimal, isTimeColumn, toValue, type FormValue } from './formValues';

// One field of the edit form: the input its column's kind asks for, its
// label, hint and message.

// longText is a text column that gets a textarea: a TEXT-like SQL type, a
// name that says prose, or a value that is already long or multi-line.
function longText(col: Column, value: string): boolean {
  return /text|clob/i.test(col.type) || /^(body|description|notes?|message|content|reason|comment|bio|summary)$/.test(col.name) || value.length > 120 || value.includes('\n');
}

const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

// FieldInput is the input of col, disabled or not, with error under it;
// label is the picked row's label of a foreign key.
export function FieldInput({ col, value, disabled, error, label, onChange }: {
  col: Column;
  value: FormValue;
  disabled: boolean;
  error?: string;
  label?: string;
  onChange: (v: FormValue, label?: string) => void;
}) {
  const catalog = useCatalog();
  const { t } = useTranslation('form');
  const id = 'field-' + col.name;
  const text = typeof value === 'string' ? value : '';
  // Input or textarea is decided by the value the field starts with: a
  // swap at the 121st character would take the caret out mid-typing.
  const [multiline] = useState(() => longText(col, text));
  const target = col.linkTo?.resource ? catalog.data?.find((r) => r.name === col.linkTo?.resource && r.permissions.list && r.primaryKey.length === 1) : undefined;
  let input;
  // A text key left empty is made by the server (Create.Defaults, the
  // database's default, else a UUIDv7).
  const madeKey = col.primary && col.dataType === 'string' && !disabled;
  let hint = madeKey ? t('Leave empty for a new id.') : '';
  if (target) {
    input = <ForeignKeyPicker id={id} col={col} target={target} value={text} label={label} disabled={disabled} onChange={(v, l) => onChange(v, l)} />;
  } else if (col.choices && col.choices.length > 0) {
    input = (
      <select id={id} name={col.name} value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
        {(!col.notNull || text === '') && <option value="">{col.notNull ? t('Choose…') : t('— none —')}</option>}
        {col.choices.map((c) => (
          <option key={c} value={c}>{c}</option>
        ))}
      </select>
    );
  } else if (col.kind === 'array' && col.elem !== 'json') {
    input = <ArrayEditor id={id} col={col} value={text} disabled={disabled} onChange={(v) => onChange(v)} />;
  } else if (col.kind === 'timestamp-local') {
    hint = t('no time zone: stored as written');
    input = <input id={id} name={col.name} type="datetime-local" step="any" value={text} disabled={disabled} aria-describedby={id + '-hint'} onChange={(e) => onChange(e.target.value)} />;
  } else if (col.kind === 'date') {
    input = <input id={id} name={col.name} type="date" value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />;
  } else if (col.kind === 'decimal' || col.kind === 'inet') {
    hint = col.kind === 'decimal' ? decimalHint(t, col.scale) : t('an address or a network, such as 10.0.0.0/8');
    // Checked as typed, not only on save: a typo shows at once.
    if (!error && text.trim() !== '') {
      try {
        toValue(col, text);
      } catch (err) {
        if (err instanceof FieldError) error = err.message;
      }
    }
    input = (
      <input id={id} name={col.name} type="text" inputMode={col.kind === 'decimal' ? 'decimal' : undefined} value={text} disabled={disabled}
        aria-describedby={id + '-hint'} aria-invalid={error ? true : undefined} onChange={(e) => onChange(e.target.value)} />
    );
  } else if (isTimeColumn(col)) {
    // An instant, whatever the column stores it as (a unix-seconds
    // integer the server converts is one too).
    hint = t('in your time zone, {{zone}}', { zone: timeZone });
    input = <input id={id} name={col.name} type="datetime-local" step="1" value={text} disabled={disabled} aria-describedby={id + '-hint'} onChange={(e) => onChange(e.target.value)} />;
  } else {
    switch (col.dataType) {
      case 'boolean':
        input = (
          <Switch.Root id={id} className="switch" checked={value === true} disabled={disabled} onCheckedChange={(on) => onChange(on)}>
            <Switch.Thumb className="switch-thumb" />
          </Switch.Root>
        );
        break;
      case 'integer':
        // Text, not a number input: its arrows and wheel step through a
        // double, which rounds a Steam id or a snowflake to a neighbour's.
        input = <input id={id} name={col.name} type="text" inputMode="numeric" autoComplete="off" value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />;
        break;
      case 'number':
        input = <input id={id} name={col.name} type="number" step="any" value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />;
        break;
      case 'datetime':
        hint = t('in your time zone, {{zone}}', { zone: timeZone });
        input = <input id={id} name={col.name} type="datetime-local" step="1" value={text} disabled={disabled} aria-describedby={id + '-hint'} onChange={(e) => onChange(e.target.value)} />;
        break;
      case 'json':
        input = <JsonEditor id={id} value={text} disabled={disabled} label={col.label} onChange={(v) => onChange(v)} />;
        break;
      default:
        input = multiline ? (
          <textarea id={id} name={col.name} rows={5} value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input id={id} name={col.name} type="text" value={text} disabled={disabled} onChange={(e) => onChange(e.target.value)} />
        );
    }
  }
  // A field with a problem says so to assistive technology too: invalid,
  // and described by its message.
  if (error && isValidElement(input) && typeof input.type === 'string') {
    const el = input as ReactElement<{ 'aria-describedby'?: string }>;
    const described = [el.props['aria-describedby'], id + '-error'].filter(Boolean).join(' ');
    input = cloneElement(el, { 'aria-invalid': true, 'aria-describedby': described } as Record<string, unknown>);
  }
  return (
    <div className={'form-field' + (col.dataType === 'boolean' && !target ? ' checkbox' : '') + (error ? ' has-error' : '')}>
      <label htmlFor={id}>
        {col.label}
        {col.notNull && !col.hasDefault && !madeKey && col.dataType !== 'boolean' && !disabled && <span className="required"> *</span>}
        {disabled && <span className="muted"> {t('(read-only)')}</span>}
      </label>
      {input}
      {hint && <span id={id + '-hint'} className="muted hint">{hint}</span>}
      {error && <p className="form-error" id={id + '-error'}>{error}</p>}
    </div>
  );
}

// decimalHint says what a decimal field keeps: its column's scale when the
// database declares one.
function decimalHint(t: TFunction<'form'>, scale: number | undefined): string {
  if (scale === undefined) return t('exact: the digits are kept as typed');
  if (scale === 0) return t('a whole number, kept exactly');
  return t('exact, {{count}} digits after the point, such as {{example}}', { count: scale, example: formatDecimal('12.3', scale) });
}
