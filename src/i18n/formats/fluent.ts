/**
 * Fluent (`locales/en-US/main.ftl`, `main.fr.ftl`): a message id is a key (`hello`), a term too
 * (`-brand`), an attribute is `<id>.<attr>` (`hello.title`). A value is its pattern as shown: text
 * and placeables as written (`Hello { $name }!`); a select expression shows its default variant,
 * and every variant is also a text of that key (`[one] One email` finds `emails`). Parsed with
 * @fluent/syntax, spans on; a Junk entry (what the parser could not read) is reported with its
 * line and the parser's message, the rest of the file is read.
 */
import { parse, type Pattern, type PatternElement } from '@fluent/syntax';
import { SourceText } from '../../parse/source-text';
import { identifyStem } from '../locale-code';
import type { I18nProblem, Leaf } from '../types';
import { buildEntries, errText, extensionTest, type LocaleFormat, unreadable } from './common';

const EXTENSIONS = ['ftl'];
const EXT = extensionTest(EXTENSIONS);

/** A pattern as shown (default variants), and each variant's text. */
function show(p: Pattern, text: string, variants: string[], depth = 0): string {
  let out = '';
  for (const el of p.elements as PatternElement[]) {
    if (el.type === 'TextElement') out += el.value;
    else if (el.expression.type === 'SelectExpression' && depth < 8) {
      const sel = el.expression;
      for (const v of sel.variants) variants.push(show(v.value, text, variants, depth + 1).trim());
      const def = sel.variants.find((v) => v.default) ?? sel.variants[0];
      if (def) out += show(def.value, text, variants, depth + 1);
    } else if (el.span) out += text.slice(el.span.start, el.span.end);
  }
  return out;
}

export const fluentFormat: LocaleFormat = {
  name: 'Fluent',
  extensions: EXTENSIONS,
  claims(rel, ctx) {
    return EXT.test(rel) && (!ctx.matchesGlobs || ctx.matchesGlobs(rel));
  },
  read(rel, text) {
    const parts = rel.split('/');
    const id = identifyStem(parts.slice(0, -1), parts[parts.length - 1].replace(EXT, ''));
    if (!id) return unreadable(rel, text, 'unknown-locale', 'Fluent file with no locale code in its name or folders: not read');
    let res;
    try {
      res = parse(text, { withSpans: true });
    } catch (err) {
      return unreadable(rel, text, 'malformed', `Fluent does not parse (${errText(err)}): not read`);
    }
    const src = new SourceText(text);
    const problems: I18nProblem[] = [];
    const leaves: Leaf[] = [];
    const add = (key: string, ks: number, ke: number, p: Pattern | null | undefined) => {
      if (!p?.span) return;
      const variants: string[] = [];
      const value = show(p, text, variants).trim();
      leaves.push({ path: key, value, vs: p.span.start, ve: p.span.end, ks, ke, also: variants.filter((v) => v && v !== value) });
    };
    for (const entry of res.body) {
      if (entry.type === 'Junk') {
        const line = src.position(entry.span?.start ?? 0).line;
        const why = entry.annotations[0]?.message ?? 'unreadable entry';
        problems.push({ kind: 'malformed', file: rel, line, message: `Fluent entry at line ${line} does not parse (${why}): skipped` });
        continue;
      }
      if (entry.type !== 'Message' && entry.type !== 'Term') continue;
      const name = entry.type === 'Term' ? `-${entry.id.name}` : entry.id.name;
      const is = entry.id.span?.start ?? 0;
      const ks = entry.type === 'Term' ? is - 1 : is;
      const ke = entry.id.span?.end ?? ks;
      add(name, ks, ke, entry.value);
      for (const a of entry.attributes) add(`${name}.${a.id.name}`, a.id.span?.start ?? ks, a.id.span?.end ?? ke, a.value);
    }
    // Fluent resources are per locale; a file name (`main.ftl`) is no namespace the code names
    return { file: rel, lines: src, entries: buildEntries(leaves, id.locale, undefined, src, rel, problems), problems };
  },
};
