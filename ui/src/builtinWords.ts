import type { TFunction } from 'i18next';
import type { ResourceMeta } from './api';
import i18n from './i18n';

// The built-in tables' labels (the server marks their resources builtin):
// the panel's own English words, said here in the operator's language.
// A label a game set is not among them and is shown as sent, and so is
// every label of the game's own tables.
function builtinWords(t: TFunction<'common'>): Map<string, string> {
  return new Map([
    // Resources.
    ['Users', t('Users')],
    ['Configs', t('Configs')],
    ['Leaderboards', t('Leaderboards')],
    ['Analytics Events', t('Analytics Events')],
    ['Cloud Saves', t('Cloud Saves')],
    ['Leaderboard Entries', t('Leaderboard Entries')],
    ['Roles', t('Roles')],
    ['User Notes', t('User Notes')],
    ['Audit log', t('Audit log')],
    // Columns.
    ['ID', t('ID')],
    ['Email', t('Email')],
    ['Display Name', t('Display Name')],
    ['Ban', t('Ban')],
    ['Token Version', t('Token Version')],
    ['Created At', t('Created At')],
    ['Updated At', t('Updated At')],
    ['Key', t('Key')],
    ['Value', t('Value')],
    ['Name', t('Name')],
    ['Sort Order', t('Sort Order')],
    ['User ID', t('User ID')],
    ['Payload', t('Payload')],
    ['Slot', t('Slot')],
    ['Data', t('Data')],
    ['Version', t('Version')],
    ['Leaderboard ID', t('Leaderboard ID')],
    ['Score', t('Score')],
    ['Metadata', t('Metadata')],
    ['Role', t('Role')],
    ['Scopes', t('Scopes')],
    ['Author ID', t('Author ID')],
    ['Body', t('Body')],
    ['When', t('When')],
    ['Operator', t('Operator')],
    ['Action', t('Action')],
    ['Resource', t('Resource')],
    ['Target', t('Target')],
    // Relations.
    ['Entries', t('Entries')],
    ['User', t('User')],
    ['Leaderboard', t('Leaderboard')],
    ['Author', t('Author')],
  ]);
}

// said is the last catalog said in each language: the same answer in
// the same language is the same object.
const said = new WeakMap<ResourceMeta[], Map<string, ResourceMeta[]>>();

// sayCatalog is the catalog with its built-in words in lng: a built-in
// resource's label and its columns' and relations'; and on any resource,
// a tab named after a built-in resource (its label as sent), as that
// resource is named.
export function sayCatalog(catalog: ResourceMeta[], lng: string): ResourceMeta[] {
  let byLng = said.get(catalog);
  if (!byLng) said.set(catalog, (byLng = new Map()));
  let out = byLng.get(lng);
  if (!out) byLng.set(lng, (out = say(catalog, builtinWords(i18n.getFixedT(lng, 'common')))));
  return out;
}

function say(catalog: ResourceMeta[], words: Map<string, string>): ResourceMeta[] {
  const word = (s: string) => words.get(s) ?? s;
  const builtin = new Map(catalog.filter((r) => r.builtin).map((r) => [r.name, r.label]));
  return catalog.map((r) => {
    const relations = r.relations.map((rel) => (r.builtin || builtin.get(rel.target) === rel.label ? { ...rel, label: word(rel.label) } : rel));
    if (!r.builtin) return relations.some((rel, i) => rel !== r.relations[i]) ? { ...r, relations } : r;
    return { ...r, label: word(r.label), relations, columns: r.columns.map((c) => ({ ...c, label: word(c.label) })) };
  });
}
