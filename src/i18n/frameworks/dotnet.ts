/**
 * .NET: the usages of the resource keys of formats/resx.ts in C# (`.cs`), Visual Basic (`.vb`),
 * Razor (`.cshtml`, `.razor`) and XAML (`.xaml`).
 * - The class generated from a .resx: `Resources.Key`, `Properties.Resources.Key`,
 *   `My.Resources.Key`, `@SharedResources.Key`: a PascalCase type whose name ends in `Resources`,
 *   `Resource`, `Strings`, `Texts`, `Labels` or `Messages`, then a member that is no method call
 *   and not the class's own `ResourceManager` or `Culture` (`App.Resources.Strings.Key` is
 *   `Strings.Key`; `typeof(…)` and `using`/`Imports`/`namespace` lines name types, not keys).
 * - `GetString("Key")` (ResourceManager, UWP's ResourceLoader), and a localizer indexed by a
 *   string: `_localizer["Key"]`, `@Localizer["Key"]`, `SharedLocalizer["Key"]` (any name ending
 *   in `localizer`), ABP's `L["Key"]`, Orchard's `T["Key"]`.
 * - Data annotations: `ErrorMessageResourceName = "Key"`; `Name`, `ShortName`, `Description`,
 *   `Prompt` and `GroupName` of a `[Display(…)]` that has a `ResourceType` (without one they are
 *   the text itself).
 * - XAML: `{x:Static p:Resources.Key}` (the same types), and UWP/WinUI's `x:Uid="Greeting"`, which
 *   sets an element's properties from the keys `Greeting.*` (a dynamic usage of `Greeting.`).
 * A key may be a verbatim string (`@"Key"`); an interpolated one (`$"Status_{s}"`) is dynamic
 * with its prefix. The class generated from a .resx (`Resources.Designer.cs`, a `GetString` per
 * key) defines keys and uses none. A scanner (no C# parser is maintained on npm) that skips
 * comments: `//` and `/* *\/`, `'` in VB, `<!-- -->` in XAML; in Razor `@* *@`, `/* *\/` and a
 * line starting with `//` (a `//` in markup is a URL's).
 */
import type { Raw } from '../types';
import { commentMask, type Framework } from './common';

const TYPE = '(?:[A-Z]\\w*)?(?:Resources|Resource|Strings|Texts|Labels|Messages)';
/** `Resources.Key`: a resource class, then a member that is neither a call nor itself a class with a member. */
const TYPED = new RegExp(`(?<!\\w)(${TYPE})\\s*\\.\\s*(?!${TYPE}\\s*\\.\\s*[A-Za-z])([A-Za-z]\\w*)\\b(?!\\s*\\()`, 'g');
/** The generated class's own members. */
const CLASS_MEMBERS = new Set(['ResourceManager', 'Culture']);
const GET_STRING = /\bGetString\s*\(\s*/g;
const INDEXER = /(?<!\w)(\w*[lL]ocalizer|L|T)\s*\[\s*/g;
const RESOURCE_NAME = /\bErrorMessageResourceName\s*:?=\s*/g;
/** `Display(…)` and its arguments (a `typeof(…)` among them). */
const DISPLAY = /\bDisplay(?:Attribute)?\s*\(((?:[^()"]|"(?:[^"\\\n]|\\.)*"|\([^()]*\))*)\)/g;
const DISPLAY_KEY = /\b(Name|ShortName|Description|Prompt|GroupName)\s*:?=\s*/g;
const X_STATIC = new RegExp(`\\{x:Static\\s+(?:\\w+:)?(?:\\w+\\.)*?${TYPE}\\s*\\.\\s*([A-Za-z]\\w*)(?=\\s*\\})`, 'g');
const X_UID = /\bx:Uid\s*=\s*(["'])([\w.-]+)\1/g;
/** The start of a line that names types: a `using`/`Imports`/`namespace` directive, or inside `typeof(`. */
const TYPE_CONTEXT = /^\s*(?:global\s+)?@?(?:using|imports|namespace)\s+(?:static\s+)?(?:\w+\s*=\s*)?[\w.]*$|\b(?:typeof|GetType)\s*\(\s*[\w.]*$/i;

/**
 * A C# string literal at `at` (`"…"`, verbatim `@"…"`, interpolated `$"…"`): its value and the
 * offsets inside the quotes; an interpolated one is dynamic from its first hole (the offsets
 * then end there). Undefined when there is none, or it is unterminated on its line.
 */
function csString(text: string, at: number): { value: string; s: number; e: number; dynamic: boolean } | undefined {
  const prefix = /^(?:\$@|@\$|\$|@)?"/.exec(text.slice(at, at + 3));
  if (!prefix) return undefined;
  const verbatim = prefix[0].includes('@');
  const interpolated = prefix[0].includes('$');
  const s = at + prefix[0].length;
  let value = '';
  for (let i = s; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      if (!verbatim || text[i + 1] !== '"') return { value, s, e: i, dynamic: false };
      i++;
    } else if (c === '\n' && !verbatim) return undefined;
    else if (c === '\\' && !verbatim) {
      value += text[++i] ?? '';
      continue;
    } else if (c === '{' && interpolated) {
      if (text[i + 1] !== '{') return { value, s, e: i, dynamic: true };
      i++;
    }
    value += c;
  }
  return undefined;
}

/** A usage through the class generated from a .resx (`Resources.Key`, `{x:Static p:Resources.Key}`): the C# / XAML compiler checks its key already. */
export function dotnetCompileChecked(u: { file: string; via: string }): boolean {
  return /\.(?:cs|vb|cshtml|razor|xaml)$/i.test(u.file) && (u.via === 'x:Static' || new RegExp(`^${TYPE}$`).test(u.via));
}

export const dotnetFramework: Framework = {
  name: '.NET',
  claims: (rel) => /\.(?:cs|vb|cshtml|razor|xaml)$/i.test(rel),
  find(rel, text) {
    const out: Raw[] = [];
    if (text.includes('StronglyTypedResourceBuilder')) return out;
    const ext = rel.slice(rel.lastIndexOf('.') + 1).toLowerCase();
    const razor = ext === 'cshtml' || ext === 'razor';
    const inComment = commentMask(text, ext === 'xaml' ? [['<!--', '-->']] : ext === 'vb' ? [["'", '\n']] : razor ? [['@*', '*@'], ['/*', '*/']] : [['//', '\n'], ['/*', '*/']]);
    const ignored = (at: number) => {
      if (inComment(at)) return true;
      // the line before the match, its last 300 characters at most (a directive is shorter): in a
      // file of one long line (generated, minified) every match read all that came before it
      let from = at;
      while (from > 0 && at - from < 300 && text[from - 1] !== '\n') from--;
      const line = from > 0 && text[from - 1] !== '\n' ? `\0${text.slice(from, at)}` : text.slice(from, at);
      return TYPE_CONTEXT.test(line) || (razor && /^\s*\/\//.test(line));
    };
    /** Each match of `re` (from `from`, before `to`) followed by a string literal: a usage of its text. */
    const literals = (re: RegExp, via: (m: RegExpExecArray) => string, from = 0, to = text.length) => {
      re.lastIndex = from;
      for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
        const lit = csString(text, m.index + m[0].length);
        if (lit?.value && !ignored(m.index)) out.push({ key: lit.value, dynamic: lit.dynamic, via: via(m), start: lit.s, end: lit.e });
      }
    };
    /** Each match of `re` ending in a key (group `g`): a usage of it. */
    const members = (re: RegExp, g: number, via: (m: RegExpExecArray) => string) => {
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        const key = m[g];
        const end = m.index + m[0].length;
        if (!CLASS_MEMBERS.has(key) && !ignored(m.index)) out.push({ key, dynamic: false, via: via(m), start: end - key.length, end });
      }
    };
    if (ext === 'xaml') {
      members(X_STATIC, 1, () => 'x:Static');
      X_UID.lastIndex = 0;
      for (let m = X_UID.exec(text); m; m = X_UID.exec(text)) {
        const end = m.index + m[0].length - 1;
        if (!inComment(m.index)) out.push({ key: `${m[2]}.`, dynamic: true, via: 'x:Uid', start: end - m[2].length, end });
      }
      return out;
    }
    members(TYPED, 2, (m) => m[1]);
    literals(GET_STRING, () => 'GetString');
    literals(INDEXER, (m) => `${m[1]}[]`);
    literals(RESOURCE_NAME, () => 'ErrorMessageResourceName');
    DISPLAY.lastIndex = 0;
    for (let m = DISPLAY.exec(text); m; m = DISPLAY.exec(text)) {
      if (!/\bResourceType\s*:?=/.test(m[1])) continue;
      const args = m.index + m[0].indexOf('(') + 1;
      literals(DISPLAY_KEY, (k) => `Display(${k[1]})`, args, args + m[1].length);
    }
    return out;
  },
};
