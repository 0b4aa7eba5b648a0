import { useTranslation } from 'react-i18next';
import { pathChangeText } from '../fieldWords';
import { pathWords, type PathChange } from '../jsonDiff';

// A JSON document's changes, place by place, as the server's history
// records them and the edit form's conflict view shows them.

// PathChangeWords says one change: "stats.gold: 100 → 777777", a place
// the change added or removed said so.
export function PathChangeWords({ change: c }: { change: PathChange }) {
  // The words are the history namespace's: loaded before they are said,
  // and said again when the language changes.
  useTranslation('history');
  return <><code className="path">{pathWords(c.path)}</code>: {pathChangeText(c)}</>;
}

// PathChanges lists changes one a line; note, when it says something of
// a change ("yours is kept"), follows it.
export function PathChanges({ changes, note }: { changes: PathChange[]; note?: (c: PathChange) => string }) {
  return (
    <ul className="path-changes">
      {changes.map((c, i) => (
        <li key={i}>
          <PathChangeWords change={c} />
          {note?.(c) && <> <span className="badge badge-kept">{note(c)}</span></>}
        </li>
      ))}
    </ul>
  );
}
