/**
 * Qt: the sources of Qt Linguist's `.ts` files (src/i18n/formats/qt.ts) as code names them; the
 * source text is the key, any context argument is not (the reader keys messages by source only).
 * - C++ (`.cpp`, `.cc`, `.cxx`, `.h`, `.hpp`): `tr("Text")` (also `QObject::tr`, `MyWidget::tr`,
 *   `trUtf8`), `QCoreApplication::translate("Context", "Text")` (any `translate` given two string
 *   literals: `qApp->translate`), `QT_TR_NOOP("Text")`, `QT_TR_N_NOOP`, `QT_TRANSLATE_NOOP("Context",
 *   "Text")`, `QT_TRANSLATE_NOOP3`, `QT_TRANSLATE_N_NOOP`. Literals as C++ writes them: escapes,
 *   `u8"…"`, `L"…"`, raw `R"(…)"`, and adjacent ones joined (`tr("Long " "text")`, as lupdate does).
 * - QML (`.qml`): `qsTr("Text")`, `qsTranslate("Context", "Text")`, `QT_TR_NOOP`, `QT_TRANSLATE_NOOP`
 *   (`"…"` or `'…'`).
 * - PyQt / PySide, through frameworks/gettext.ts (which reads `.py` files): `self.tr("Text")`,
 *   `QCoreApplication.translate("Context", "Text")`, pyuic's `_translate("Context", "Text")`,
 *   `QT_TR_NOOP`, `QT_TRANSLATE_NOOP` (`"…"`, `'…'`, adjacent literals joined).
 * Id-based translation (`qtTrId("id")`, `qsTrId`) is not read. A scanner that skips `//` and
 * `/* *\/` comments (`#` in Python), found outside string and character literals.
 */
import type { Raw } from '../types';
import { commentTest, type Framework } from './common';
import { escapeAt, type Literal } from './rust';

type Lang = 'cpp' | 'qml' | 'py';

/** A C++ raw string's start, `R"delim(` (after an encoding prefix). */
const RAW_CPP = /(?:u8|[LuU])?R"([^()\\\s"]{0,16})\(/y;

/**
 * The literal at `text[at]` alone: `"…"` or `'…'` (C++'s character literal), escapes read, on one
 * line; C++'s raw strings and encoding prefixes, Python's `u`/`b` prefixes and triple quotes.
 */
function literal(text: string, at: number, lang: Lang): Literal | undefined {
  if (lang === 'cpp') {
    RAW_CPP.lastIndex = at;
    const raw = RAW_CPP.exec(text);
    if (raw) {
      const close = `)${raw[1]}"`;
      const e = text.indexOf(close, RAW_CPP.lastIndex);
      return e < 0 ? undefined : { value: text.slice(RAW_CPP.lastIndex, e), s: RAW_CPP.lastIndex, e, end: e + close.length };
    }
    at += /^(?:u8|[LuU])?/.exec(text.slice(at, at + 2))?.[0].length ?? 0;
  } else if (lang === 'py') at += /^[uUbB]?/.exec(text[at] ?? '')?.[0].length ?? 0;
  const q = text[at];
  if (q !== '"' && q !== "'") return undefined;
  if (lang === 'py' && text.startsWith(q.repeat(3), at)) {
    const e = text.indexOf(q.repeat(3), at + 3);
    return e < 0 ? undefined : { value: text.slice(at + 3, e), s: at + 3, e, end: e + 3 };
  }
  let value = '';
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === q) return { value, s: at + 1, e: i, end: i + 1 };
    if (c === '\n') return undefined;
    if (c !== '\\') {
      value += c;
      continue;
    }
    const [s, len] = escapeAt(text, i);
    value += s;
    i += len - 1;
  }
  return undefined;
}

/** The literal at `at` with any adjacent ones after it (C++ and Python join them): one text, one range. */
function joinedLiteral(text: string, at: number, lang: Lang): Literal | undefined {
  const first = literal(text, at, lang);
  if (!first || lang === 'qml') return first;
  let value = first.value;
  let last = first;
  for (;;) {
    const gap = /^\s*/.exec(text.slice(last.end, last.end + 200))![0].length;
    const next = literal(text, last.end + gap, lang);
    if (!next) return { value, s: first.s, e: last.e, end: last.end };
    value += next.value;
    last = next;
  }
}

/** The offset after the literal that starts at `text[at]` (a quote, or a prefix starting a word), or undefined. */
const literalEnd = (lang: Lang) => (text: string, at: number) => (/["']/.test(text[at]) || (/[uULRbB]/.test(text[at]) && !/\w/.test(text[at - 1] ?? '')) ? literal(text, at, lang)?.end : undefined);

/** Per language: calls of the text first (`tr`), and of a context then the text (`translate`), up to the first literal. */
const CALLS: Record<Lang, { text: RegExp; context: RegExp }> = {
  cpp: {
    text: /(?<![\w.])(?:\w+::)*(?:tr|trUtf8|QT_TR_NOOP|QT_TR_N_NOOP)\s*\(\s*(?=(?:u8|[LuU])?R?")/g,
    context: /(?<![\w.])(?:\w+::)*(?:translate|QT_TRANSLATE_NOOP3?|QT_TRANSLATE_N_NOOP3?)\s*\(\s*(?=(?:u8|[LuU])?R?")/g,
  },
  qml: {
    text: /(?<![\w.])(?:qsTr|QT_TR_NOOP)\s*\(\s*(?=["'])/g,
    context: /(?<![\w.])(?:qsTranslate|QT_TRANSLATE_NOOP)\s*\(\s*(?=["'])/g,
  },
  py: {
    text: /(?<!\w)(?:\w+\.)*(?:tr|QT_TR_NOOP)\s*\(\s*(?=[uUbB]?["'])/g,
    context: /(?<!\w)(?:\w+\.)*(?:translate|_translate|QT_TRANSLATE_NOOP)\s*\(\s*(?=[uUbB]?["'])/g,
  },
};

/** The usages of Qt's translate calls in a C++, QML or Python text. */
function usagesOf(text: string, lang: Lang): Raw[] {
  const out: Raw[] = [];
  const inComment = commentTest(text, literalEnd(lang), lang === 'py' ? '#' : '//');
  for (const [shape, re] of Object.entries(CALLS[lang])) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (inComment(m.index)) continue;
      let lit = joinedLiteral(text, m.index + m[0].length, lang);
      if (shape === 'context' && lit) {
        const comma = /^\s*,\s*/.exec(text.slice(lit.end, lit.end + 200));
        lit = comma ? joinedLiteral(text, lit.end + comma[0].length, lang) : undefined;
      }
      if (lit?.value) out.push({ key: lit.value, dynamic: false, via: m[0].replace(/[\s(]+$/, ''), start: lit.s, end: lit.e });
    }
  }
  return out;
}

/** PyQt's and PySide's translate calls in a Python text (frameworks/gettext.ts, which reads `.py` files, adds them). */
export function qtPythonUsages(text: string): Raw[] {
  return /\btr\s*\(|translate\s*\(|QT_TR/.test(text) ? usagesOf(text, 'py') : [];
}

export const qtFramework: Framework = {
  name: 'Qt',
  claims: (rel) => /\.(?:cpp|cc|cxx|h|hpp|qml)$/i.test(rel),
  find: (rel, text) => (/\btr(?:Utf8)?\s*\(|translate\s*\(|QT_TR|qsTr/.test(text) ? usagesOf(text, /\.qml$/i.test(rel) ? 'qml' : 'cpp') : []),
};
