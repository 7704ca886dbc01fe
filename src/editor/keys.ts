/**
 * Keyboard navigation of the sidebar's result list, as a pure function: which result gets the
 * focus for a key, and what the key does. Used by media/view.ts.
 */

export type NavAction =
  | { kind: 'focus'; index: number }
  /** Back to the query box. */
  | { kind: 'query' }
  | { kind: 'open'; index: number; preview: boolean }
  | { kind: 'similar'; index: number }
  | { kind: 'none' };

/** `current` is the focused result (-1: the query box has the focus); `count` results. */
export function navigate(key: string, current: number, count: number, pageSize = 10): NavAction {
  if (count === 0) return { kind: 'none' };
  const inList = current >= 0 && current < count;
  switch (key) {
    case 'ArrowDown':
      return { kind: 'focus', index: inList ? Math.min(count - 1, current + 1) : 0 };
    case 'ArrowUp':
      return inList && current > 0 ? { kind: 'focus', index: current - 1 } : { kind: 'query' };
    case 'PageDown':
      return { kind: 'focus', index: inList ? Math.min(count - 1, current + pageSize) : Math.min(count - 1, pageSize - 1) };
    case 'PageUp':
      return inList ? { kind: 'focus', index: Math.max(0, current - pageSize) } : { kind: 'none' };
    case 'Home':
      return inList ? { kind: 'focus', index: 0 } : { kind: 'none' };
    case 'End':
      return inList ? { kind: 'focus', index: count - 1 } : { kind: 'none' };
    case 'Enter':
      return { kind: 'open', index: inList ? current : 0, preview: false };
    case ' ':
      return inList ? { kind: 'open', index: current, preview: true } : { kind: 'none' };
    case 'Escape':
      return inList ? { kind: 'query' } : { kind: 'none' };
    case 's':
    case 'S':
      return inList ? { kind: 'similar', index: current } : { kind: 'none' };
    default:
      return { kind: 'none' };
  }
}
