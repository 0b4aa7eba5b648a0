import type { ReactNode } from 'react';
import * as Menu from '@radix-ui/react-dropdown-menu';
import { Ellipsis } from 'lucide-react';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  danger?: boolean;
}

// RowMenu is the "…" button of a list row with its actions (a Radix menu:
// arrow keys, Escape, focus back on the button).
export function RowMenu({ items, label }: { items: MenuItem[]; label: string }): ReactNode {
  if (items.length === 0) return null;
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger asChild>
        <button type="button" className="icon-button" aria-label={label}>
          <Ellipsis size={16} aria-hidden="true" />
        </button>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content className="menu-items" align="end" sideOffset={4}>
          {items.map((it) => (
            <Menu.Item key={it.label} className={'menu-item' + (it.danger ? ' danger-text' : '')} onSelect={it.onSelect}>
              {it.label}
            </Menu.Item>
          ))}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
