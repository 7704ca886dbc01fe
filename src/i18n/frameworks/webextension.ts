/**
 * WebExtensions' manifest (`manifest.json`): a string value's `__MSG_name__` is the message
 * `name` of `_locales/<locale>/messages.json` (the extension's name and description are mostly
 * used only there). The JSON is parsed (jsonc-parser) and only its string values are read; the
 * predefined `__MSG_@@…__` messages are not the extension's. `chrome.i18n.getMessage('name')` in
 * scripts is read by usages.ts.
 */
import * as jsonc from 'jsonc-parser';
import type { Raw } from '../types';
import type { Framework } from './common';

const MSG = /__MSG_([A-Za-z0-9_]+)__/g;

export const webextensionFramework: Framework = {
  name: 'WebExtension manifest',
  claims: (rel) => /(?:^|\/)manifest\.json$/i.test(rel),
  find(_rel, text) {
    const out: Raw[] = [];
    if (!text.includes('__MSG_')) return out;
    const root = jsonc.parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
    const stack: jsonc.Node[] = root ? [root] : [];
    while (stack.length) {
      const n = stack.pop()!;
      if (n.type === 'string' && n.length > 2) {
        // the raw text inside the quotes: a name has no character JSON escapes, so raw offsets are the value's
        const raw = text.slice(n.offset + 1, n.offset + n.length - 1);
        for (const m of raw.matchAll(MSG)) {
          const s = n.offset + 1 + m.index + '__MSG_'.length;
          out.push({ key: m[1], dynamic: false, via: '__MSG__', start: s, end: s + m[1].length });
        }
      }
      for (const c of n.children ?? []) if (!(n.type === 'property' && c === n.children?.[0])) stack.push(c);
    }
    return out;
  },
};
