/**
 * Java and Kotlin (also Scala and Groovy), and the JVM's web templates: the keys of `.properties`
 * bundles (formats/properties.ts: Spring's `messages.properties`, a `ResourceBundle`) and of
 * Android's string resources as code names them.
 * - Code: Android's `R.string.x` (frameworks/android.ts); Spring's `getMessage("k", …)`
 *   (`MessageSource`, `MessageSourceAccessor`), Struts' `getText("k")`; a bundle's
 *   `getString("k")` / `getObject("k")` when the receiver is named like one (`bundle`,
 *   `messages`, `rb`, `resources`, `i18n`, `labels` …: `json.getString("name")` or a
 *   `ResultSet`'s is no key); Bean Validation's `message = "{k}"`. A Kotlin template
 *   (`"a.$x"`, `"a.${x}"`) is a dynamic key under its prefix.
 * - Templates (`.jsp`, `.jspx`, `.tag`; Thymeleaf in `.html`, through frameworks/angular.ts):
 *   JSTL `<fmt:message key="k">`, Spring `<spring:message code="k">`, Struts `<s:text name="k">`
 *   / `<bean:message key="k">`, Thymeleaf `#{k}` and `#{k(${arg})}`.
 * A scanner that skips `//` and `/* *\/` comments in code, `<%-- --%>` and `<!-- -->` in templates.
 */
import type { Raw } from '../types';
import { androidCodeRefs } from './android';
import { commentMask, scanCalls, type Framework } from './common';

/** `getMessage(` / `getText(` on anything; `getString(` / `getObject(` on a receiver named like a bundle; up to a literal. */
const CALL = /(?<![\w$])(?:(?:[\w$]+\.)*(getMessage|getText)|(?:[\w$]*(?:[Bb]undle|[Mm]essages?|[Mm]sgs?|[Rr]esources?|[Ll]abels?|[Tt]exts?|[Ss]trings|i18n|I18N|l10n|L10N|BUNDLE|MESSAGES|RESOURCES)|rb|res)(?:\(\))?\.(getString|getObject))\s*\(\s*(?=")/g;
/** Bean Validation: `message = "{k}"`. */
const CONSTRAINT = /\bmessage\s*=\s*"\{([\w.-]+)\}"/g;
/** JSP tags naming a key: `<fmt:message key=`, `<spring:message code=`, `<s:text name=`, `<bean:message key=`. */
const JSP_TAG = /<(fmt:message|spring:message|spring:theme|s:text|bean:message)\b[^>]*?\s(?:key|code|name)\s*=\s*(?=["'])/g;
/** Thymeleaf's message expression `#{k}` / `#{k(args)}`. */
const THYMELEAF = /#\{([\w.-]+)(?=[}(])/g;

/** The keys of JSP tags and Thymeleaf expressions in a template (also what frameworks/angular.ts adds for `.html`). */
export function jvmTemplateUsages(text: string): Raw[] {
  const out: Raw[] = [];
  if (!text.includes('#{') && !/<(?:fmt|spring|s|bean):/.test(text)) return out;
  const inComment = commentMask(text, [['<%--', '--%>'], ['<!--', '-->']]);
  const raws: Raw[] = [];
  scanCalls(text, JSP_TAG, (m) => `<${m[1]}>`, raws);
  THYMELEAF.lastIndex = 0;
  for (let m = THYMELEAF.exec(text); m; m = THYMELEAF.exec(text)) raws.push({ key: m[1], dynamic: false, via: '#{}', start: m.index + 2, end: m.index + 2 + m[1].length });
  for (const r of raws) if (!inComment(r.start)) out.push(r);
  return out.sort((a, b) => a.start - b.start);
}

export const jvmFramework: Framework = {
  name: 'JVM',
  claims: (rel) => /\.(?:java|kt|kts|scala|groovy)$/i.test(rel),
  find(_rel, text) {
    const out: Raw[] = [];
    const inComment = commentMask(text, [['//', '\n'], ['/*', '*/']]);
    androidCodeRefs(text, inComment, out);
    const raws: Raw[] = [];
    scanCalls(text, CALL, (m) => m[1] ?? m[2], raws);
    CONSTRAINT.lastIndex = 0;
    for (let m = CONSTRAINT.exec(text); m; m = CONSTRAINT.exec(text)) {
      const s = m.index + m[0].indexOf('{') + 1;
      raws.push({ key: m[1], dynamic: false, via: 'message = "{}"', start: s, end: s + m[1].length });
    }
    for (const r of raws) if (!inComment(r.start)) out.push(r);
    return out.sort((a, b) => a.start - b.start);
  },
};

export const jspFramework: Framework = {
  name: 'JSP',
  claims: (rel) => /\.(?:jsp|jspx|jspf|tag|tagx)$/i.test(rel),
  find: (_rel, text) => jvmTemplateUsages(text),
};
