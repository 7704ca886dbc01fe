/**
 * gettext in Python (Django, Flask-Babel, plain `gettext`) and in Django / Jinja templates: the
 * message id is the key, as a PO file has it (`src/i18n/formats/po.ts`).
 * - Python: `_('Text')`, `gettext`, `gettext_lazy`, `gettext_noop`, `ngettext` (the singular
 *   is the key), their `u…` forms, and `pgettext('context', 'Text')` / `npgettext` (key
 *   `context|Text`, as the PO reader keys a `msgctxt`); `translation.gettext(…)` too. String
 *   prefixes `u`/`r`/`b` and triple quotes are read; an f-string is no key.
 * - Templates: Django's `{% trans "Text" %}` / `{% translate "Text" context "ctx" %}`,
 *   `{% blocktranslate %}Hello {{ name }}{% endblocktranslate %}` (key `Hello %(name)s`, as
 *   makemessages writes it; `trimmed`, `context` and the singular of `{% plural %}`), and the
 *   same calls inside `{{ … }}` (Jinja's `{{ _('Text') }}`).
 * A scanner (no Python parser is maintained on npm) that skips `#` comments in Python and
 * `{# … #}` in templates.
 */
import type { Raw } from '../types';
import { commentMask, quotedAt, type Framework } from './common';
import { qtPythonUsages } from './qt';

const FUNCS = '_|gettext|gettext_lazy|gettext_noop|ugettext|ugettext_lazy|ugettext_noop|ngettext|ngettext_lazy|ungettext|ungettext_lazy|pgettext|pgettext_lazy|npgettext|npgettext_lazy';
/** A call of one of FUNCS (bare, or on a module: `translation.gettext(`), up to its first argument. */
const CALL = new RegExp(`(?<![\\w.])(?:(?:\\w+\\.)+(?=[a-z]))?(${FUNCS})\\s*\\(\\s*`, 'g');
/** Django's `{% trans "…" %}` / `{% translate "…" %}`, up to the literal. */
const TRANS_TAG = /\{%-?\s*(?:trans|translate)\s+(?=["'])/g;
/** Django's `{% blocktranslate … %}…{% endblocktranslate %}` (and `blocktrans`): options, body. */
const BLOCK_TAG = /\{%-?\s*block(?:trans|translate)\b([^%]*)-?%\}([\s\S]*?)\{%-?\s*endblock(?:trans|translate)\s*-?%\}/g;

/**
 * The message id Django's makemessages takes from a blocktranslate body: the part before
 * `{% plural %}`, `%` doubled, `{{ name }}` as `%(name)s`, and with `trimmed` each line's
 * surrounding blanks dropped and the lines joined by a space. Undefined when the body holds any
 * other tag or expression (not a message Django accepts).
 */
export function blockMessageId(body: string, trimmed: boolean): string | undefined {
  let id = body.replace(/%/g, '%%').replace(/\{\{\s*([A-Za-z_]\w*)\s*\}\}/g, '%($1)s');
  if (/\{[{%]/.test(id)) return undefined;
  if (trimmed) id = id.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
  return id || undefined;
}

/** A Python string literal at `at` (prefixes `u`, `r`, `b`; triple quotes): its value and offsets; an f-string or none: undefined. */
function pyString(text: string, at: number): { value: string; s: number; e: number } | undefined {
  let i = at;
  while (i < at + 2 && /[uUrRbB]/.test(text[i] ?? '')) i++;
  const q = text[i];
  if (q !== '"' && q !== "'") return undefined;
  const triple = text.startsWith(q.repeat(3), i);
  if (triple) {
    const end = text.indexOf(q.repeat(3), i + 3);
    return end < 0 ? undefined : { value: text.slice(i + 3, end), s: i + 3, e: end };
  }
  const lit = quotedAt(text, i);
  return lit && !lit.dynamic ? { value: lit.value, s: lit.s, e: lit.e } : undefined;
}

/** The usages of the gettext calls in `text`. */
function calls(text: string, inComment: (off: number) => boolean, out: Raw[]): void {
  CALL.lastIndex = 0;
  for (let m = CALL.exec(text); m; m = CALL.exec(text)) {
    if (inComment(m.index)) continue;
    const fn = m[1];
    let lit = pyString(text, m.index + m[0].length);
    if (!lit) continue;
    let key = lit.value;
    if (fn.startsWith('pgettext') || fn.startsWith('npgettext')) {
      // the first argument is the context: the message follows the comma
      const rest = /^\s*,\s*/.exec(text.slice(lit.e + 1, lit.e + 200));
      const msg = rest ? pyString(text, lit.e + 1 + rest[0].length) : undefined;
      if (!msg) continue;
      key = `${lit.value}|${msg.value}`;
      lit = msg;
    }
    if (key) out.push({ key, dynamic: false, via: fn, start: lit.s, end: lit.e });
  }
}

/** Django's trans tags and the gettext calls of `{{ … }}` in a template's text (any template: HTML, text, Jinja). */
export function templateUsages(text: string): Raw[] {
  const out: Raw[] = [];
  if (!text.includes('{%') && !text.includes('{{')) return out;
  const inComment = commentMask(text, [['{#', '#}'], ['{% comment %}', '{% endcomment %}']]);
  TRANS_TAG.lastIndex = 0;
  for (let m = TRANS_TAG.exec(text); m; m = TRANS_TAG.exec(text)) {
    if (inComment(m.index)) continue;
    const lit = quotedAt(text, m.index + m[0].length);
    if (!lit || lit.dynamic || !lit.value) continue;
    // `context "ctx"` after the literal keys the message as the PO file does
    const ctx = /^\s+context\s+(?=["'])/.exec(text.slice(lit.e + 1, lit.e + 40));
    const c = ctx ? quotedAt(text, lit.e + 1 + ctx[0].length) : undefined;
    out.push({ key: c && !c.dynamic ? `${c.value}|${lit.value}` : lit.value, dynamic: false, via: 'trans', start: lit.s, end: lit.e });
  }
  BLOCK_TAG.lastIndex = 0;
  for (let m = BLOCK_TAG.exec(text); m; m = BLOCK_TAG.exec(text)) {
    if (inComment(m.index)) continue;
    const bodyAt = m.index + m[0].indexOf('%}') + 2;
    const plural = /\{%-?\s*plural\s*-?%\}/.exec(m[2]);
    const singular = plural ? m[2].slice(0, plural.index) : m[2];
    const id = blockMessageId(singular, /(?:^|\s)trimmed(?:\s|$)/.test(m[1]));
    if (!id) continue;
    const ctx = /\bcontext\s+(["'])((?:(?!\1).)*)\1/.exec(m[1]);
    out.push({ key: ctx ? `${ctx[2]}|${id}` : id, dynamic: false, via: 'blocktranslate', start: bodyAt, end: bodyAt + singular.length });
  }
  if (/\{\{[^}]*(?:_|gettext)\s*\(/.test(text)) calls(text, inComment, out);
  return out;
}

export const gettextFramework: Framework = {
  name: 'gettext',
  claims: (rel) => /\.(?:py|pyi|jinja|jinja2|j2|djhtml)$/i.test(rel),
  find(rel, text) {
    if (!/\.pyi?$/i.test(rel)) return templateUsages(text);
    const out = qtPythonUsages(text); // PyQt / PySide's tr() and translate()
    if (!/gettext|\b_\s*\(/.test(text)) return out;
    calls(text, commentMask(text, [['#', '\n']]), out);
    return out;
  },
};
