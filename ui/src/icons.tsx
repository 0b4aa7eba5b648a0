import type { LucideIcon } from 'lucide-react';
import {
  Bell, Calendar, ChartLine, Cloud, Database, FileText, Flag, Gift, Globe, Key, Lock, Mail,
  MessageSquare, Settings, Shield, Star, Store, Tag, Trophy, User, Users, Zap,
} from 'lucide-react';

// The panel's icon names (ADMIN_ICON_NAMES) and what draws them.
const icons: Record<string, LucideIcon> = {
  user: User,
  team: Users,
  safety: Shield,
  trophy: Trophy,
  'file-text': FileText,
  setting: Settings,
  'line-chart': ChartLine,
  database: Database,
  thunderbolt: Zap,
  cloud: Cloud,
  message: MessageSquare,
  key: Key,
  shop: Store,
  gift: Gift,
  flag: Flag,
  global: Globe,
  lock: Lock,
  notification: Bell,
  calendar: Calendar,
  mail: Mail,
  tag: Tag,
  star: Star,
};

export function ResourceIcon({ name, size = 16 }: { name: string; size?: number }) {
  const Icon = icons[name] ?? Database;
  return <Icon size={size} aria-hidden="true" />;
}
