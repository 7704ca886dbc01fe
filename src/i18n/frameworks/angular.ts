/**
 * Angular templates (`.html`; the TypeScript side — `translate.instant/get/stream('K')`,
 * transloco's `translate('k')` — is read by the JS rules): ngx-translate's `'K' | translate`,
 * `[translate]="'K'"`, `translate="K"` and `<el translate>K</el>`; transloco's `'k' | transloco`
 * and `*transloco="let t; read: 'scope'"` with `t('k')` inside that element (the `read` scope
 * prefixed); Fluent's `data-l10n-id="k"` in plain HTML; Django and Jinja templates' trans tags and
 * gettext calls (gettext.ts); Go templates' `{{ i18n "k" }}`, as in Hugo's `layouts/` (go.ts).
 *
 * A careful scanner, not @angular/compiler's template parser (ESM-only and several MB for what
 * is a handful of patterns): element extents come from htmlparser2 (the `*transloco` scopes),
 * keys are quoted literals read with their escapes, comments `<!-- -->` are skipped.
 */
import { parseDocument } from 'htmlparser2';
import type { Raw } from '../types';
import { commentMask, quotedAt, scanCalls, type Framework } from './common';
import { templateUsages } from './gettext';
import { goTemplateUsages } from './go';
import { jvmTemplateUsages } from './jvm';

interface HNode {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  children?: HNode[];
  startIndex: number | null;
  endIndex: number | null;
}

const PIPE = /(['"])((?:(?!\1)[^\\\n]|\\.)*)\1\s*\|\s*(translate|transloco)\b/g;
const MAYBE = /translate|transloco|data-l10n-id/;

export const angularFramework: Framework = {
  name: 'Angular',
  claims: (rel) => /\.html?$/i.test(rel),
  find(_rel, text) {
    // an .html file may be a Django or Jinja template: its trans tags and gettext calls
    return [...templateUsages(text), ...jvmTemplateUsages(text), ...goTemplateUsages(text), ...ngTemplateUsages(text)];
  },
};

/**
 * The usages of one Angular template's text: an `.html` file's, or a component's inline
 * `template:` (usages.ts hands it over decoded, and maps the offsets back into the `.ts`).
 */
export function ngTemplateUsages(text: string): Raw[] {
  const out: Raw[] = [];
  if (!MAYBE.test(text)) return out;
  const inComment = commentMask(text, [['<!--', '-->']]);
  PIPE.lastIndex = 0;
  for (let m = PIPE.exec(text); m; m = PIPE.exec(text)) {
    if (inComment(m.index)) continue;
    const q = quotedAt(text, m.index);
    if (q) out.push({ key: q.value, dynamic: false, via: `| ${m[3]}`, start: q.s, end: q.e });
  }
  const raws: Raw[] = [];
  // [translate]="'K'"  (a bound literal)
  scanCalls(text, /\[translate\]\s*=\s*"\s*(?=')/g, () => '[translate]', raws);
  // translate="K"  (a plain attribute: its value is the key), data-l10n-id="k"
  scanCalls(text, /\s(?:translate|data-l10n-id)\s*=\s*(?=["'])/g, (m) => (m[0].includes('l10n') ? 'data-l10n-id' : 'translate'), raws);
  for (const r of raws) if (!inComment(r.start)) out.push(r);
  // <el translate>KEY</el> and the *transloco scopes: from the element tree
  const doc = parseDocument(text, { withStartIndices: true, withEndIndices: true, lowerCaseAttributeNames: false }) as unknown as HNode;
  const stack: HNode[] = [doc];
  while (stack.length) {
    const n = stack.pop()!;
    const a = n.attribs ?? {};
    if (n.type === 'tag' && n.startIndex != null && n.endIndex != null) {
      if ('translate' in a && a.translate === '' && n.children?.length === 1 && n.children[0].type === 'text') {
        const c = n.children[0] as HNode & { data?: string };
        const raw = c.data ?? '';
        const lead = raw.length - raw.trimStart().length;
        if (raw.trim() && c.startIndex != null) out.push({ key: raw.trim(), dynamic: false, via: 'translate', start: c.startIndex + lead, end: c.startIndex + lead + raw.trim().length });
      }
      const scope = a['*transloco'];
      if (scope !== undefined) {
        const v = /let\s+(\w+)/.exec(scope)?.[1];
        const read = /(?:read|prefix)\s*:\s*['"]([^'"]+)['"]/.exec(scope)?.[1];
        if (v) {
          const body = text.slice(n.startIndex, n.endIndex + 1);
          const inner: Raw[] = [];
          scanCalls(body, new RegExp(`(?<![\\w.$])${v}\\(\\s*(?=['"])`, 'g'), () => `*transloco ${v}`, inner, (k, _m, dynamic) => ({ key: read ? `${read}.${k}` : k, dynamic }));
          for (const r of inner) if (!inComment(n.startIndex + r.start)) out.push({ ...r, start: n.startIndex + r.start, end: n.startIndex + r.end });
        }
      }
    }
    for (const c of n.children ?? []) stack.push(c);
  }
  return out;
}
