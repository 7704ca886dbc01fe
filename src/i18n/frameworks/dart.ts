/**
 * Flutter / Dart (`.dart`): easy_localization's `'k'.tr()`, `'k'.plural(n)`, `tr('k')`,
 * `plural('k', n)`, `context.tr('k')`; GetX `'k'.tr`; and gen-l10n's generated getters on an ARB
 * file, `AppLocalizations.of(context)!.helloWorld`, `S.of(context).helloWorld`, `S.current.x`,
 * `context.l10n.x` (the getter is the key); flutter_i18n's `FlutterI18n.translate(context, 'k')`,
 * `FlutterI18n.plural(context, 'k', n)` (the key is the second argument, after the build context)
 * and its `I18nText('k')` widget. A scanner (Dart has no parser on npm) that skips
 * line and block comments; `'a.$x'` is dynamic with its prefix.
 */
import type { Raw } from '../types';
import { commentMask, quotedAt, scanCalls, type Framework } from './common';

const STRING_TR = /(['"])((?:(?!\1)[^\\\n$]|\\.)*)\1\s*\.\s*(tr|plural|trArgs)\b(?!\w)/g;
const GETTER = /\b(?:AppLocalizations\.of\([^)]*\)!?|S\.of\([^)]*\)|S\.current|context\.l10n|l10n|loc)\s*\.\s*([a-z]\w*)/g;

export const dartFramework: Framework = {
  name: 'Dart',
  claims: (rel) => /\.dart$/i.test(rel),
  find(_rel, text) {
    const out: Raw[] = [];
    const inComment = commentMask(text, [['//', '\n'], ['/*', '*/']]);
    STRING_TR.lastIndex = 0;
    for (let m = STRING_TR.exec(text); m; m = STRING_TR.exec(text)) {
      const q = quotedAt(text, m.index);
      if (q && !inComment(m.index)) out.push({ key: q.value, dynamic: false, via: `.${m[3]}()`, start: q.s, end: q.e });
    }
    const raws: Raw[] = [];
    scanCalls(text, /(?<![\w.])(?:context\.)?(?:tr|plural)\s*\(\s*(?=['"])/g, (m) => m[0].replace(/[\s(]+$/, ''), raws);
    // flutter_i18n: the first argument is the BuildContext (`context`, `this.context`, `ctx!`).
    scanCalls(text, /\bFlutterI18n\s*\.\s*(translate|plural)\s*\(\s*[A-Za-z_][\w.]{0,80}!?\s*,\s*(?=['"])/g, (m) => `FlutterI18n.${m[1]}`, raws);
    scanCalls(text, /(?<![\w.])I18nText\s*\(\s*(?=['"])/g, () => 'I18nText', raws);
    for (const r of raws) if (!inComment(r.start)) out.push(r);
    GETTER.lastIndex = 0;
    for (let m = GETTER.exec(text); m; m = GETTER.exec(text)) {
      if (inComment(m.index)) continue;
      const name = m[1];
      if (name === 'of' || name === 'current') continue;
      const e = m.index + m[0].length;
      out.push({ key: name, dynamic: false, via: m[0].slice(0, m[0].lastIndexOf('.')).replace(/\s+/g, ''), start: e - name.length, end: e });
    }
    return out;
  },
};
