/**
 * Rails: `t('k')`, `t "k"`, `t(:k)`, `translate('k')`, `I18n.t('k')` / `I18n.translate` in views
 * (`.erb`, `.haml`, `.slim`) and Ruby (`.rb`). A lazy key `t('.title')` is resolved from the view's
 * path as Rails does: `app/views/users/index.html.erb` → `users.index.title` (a partial
 * `_form.html.erb` → `users.form.title`); in a controller (`users_controller.rb`) it depends on
 * the action, so it is a dynamic usage under `users.`. `scope: 'a.b'` / `scope: [:a, :b]` is
 * prefixed. A scanner (no Ruby parser is maintained on npm) that skips `#` comment lines and
 * `<%# %>` tags; string interpolation `"a.#{x}"` makes the key dynamic.
 */
import type { Raw } from '../types';
import { commentMask, quotedAt, type Framework } from './common';

const CALL = /(?<![\w.:$@])(?:I18n\.)?(?:t|translate)(?:\s*\(\s*|\s+)(?=['":])/g;

/** The lazy-lookup prefix of a view or controller path, and whether it is only a prefix. */
export function railsLazyScope(rel: string): { scope: string; partial: boolean } | undefined {
  const v = /(?:^|\/)app\/views\/(.+?)\.[^/]*$/.exec(rel);
  if (v) {
    const parts = v[1].split('.')[0].split('/');
    parts[parts.length - 1] = parts[parts.length - 1].replace(/^_/, '');
    return { scope: parts.join('.'), partial: false };
  }
  const c = /(?:^|\/)app\/controllers\/(.+?)_controller\.rb$/.exec(rel);
  if (c) return { scope: c[1].split('/').join('.'), partial: true };
  return undefined;
}

export const railsFramework: Framework = {
  name: 'Rails',
  claims: (rel) => /\.(?:erb|haml|slim|rb)$/i.test(rel),
  find(rel, text) {
    const out: Raw[] = [];
    if (!/\bt\b|translate/.test(text)) return out;
    const inComment = commentMask(text, [['<%#', '%>'], ...(rel.endsWith('.rb') ? ([['\n#', '\n']] as Array<[string, string]>) : [])]);
    const lazy = railsLazyScope(rel);
    CALL.lastIndex = 0;
    for (let m = CALL.exec(text); m; m = CALL.exec(text)) {
      const at = m.index + m[0].length;
      if (inComment(m.index)) continue;
      let key: string;
      let s: number;
      let e: number;
      let dynamic = false;
      if (text[at] === ':') {
        const sym = /^:([A-Za-z_][\w.]*[?!]?)/.exec(text.slice(at, at + 200));
        if (!sym) continue;
        key = sym[1];
        s = at + 1;
        e = at + sym[0].length;
      } else {
        const q = quotedAt(text, at);
        if (!q || (q.dynamic && !q.value)) continue;
        key = q.value;
        s = q.s;
        e = q.e;
        dynamic = q.dynamic;
      }
      const via = m[0].replace(/[\s(]+$/, '');
      // the rest of the call on its line: `scope: 'a.b'` or `scope: [:a, :b]`
      const rest = text.slice(e, text.indexOf('\n', e) < 0 ? text.length : text.indexOf('\n', e));
      const scope = /scope:\s*(?:['"]([\w.]+)['"]|:(\w+)|\[([^\]]*)\])/.exec(rest);
      if (scope) {
        const sc = scope[1] ?? scope[2] ?? (scope[3] ?? '').split(',').map((x) => x.trim().replace(/^[:'"]|['"]$/g, '')).filter(Boolean).join('.');
        if (sc) key = `${sc}.${key}`;
      }
      if (key.startsWith('.')) {
        if (!lazy) continue;
        if (lazy.partial) {
          out.push({ key: `${lazy.scope}.`, dynamic: true, via: `${via} (lazy)`, start: s, end: e });
          continue;
        }
        key = lazy.scope + key;
      }
      out.push({ key, dynamic, via, start: s, end: e });
    }
    return out;
  },
};
