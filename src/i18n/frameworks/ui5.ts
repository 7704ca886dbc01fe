/**
 * SAPUI5 / OpenUI5 XML views and fragments (`*.view.xml`, `*.fragment.xml`): the binding
 * `{i18n>key}` (also inside expression bindings, `${i18n>key}`), with any model name that is
 * bound to a resource bundle (`i18n`, `@i18n`). The JavaScript side
 * (`getResourceBundle().getText('key')`) is read by the JS rules. A scanner: the binding syntax
 * is UI5's own, no XML parser sees it.
 */
import type { Raw } from '../types';
import { commentMask, type Framework } from './common';

const BINDING = /\{(@?i18n\w*)>([^}\s'"]+)\}/g;

export const ui5Framework: Framework = {
  name: 'UI5',
  claims: (rel) => /\.(?:view|fragment)\.xml$/i.test(rel),
  find(_rel, text) {
    const out: Raw[] = [];
    const inComment = commentMask(text, [['<!--', '-->']]);
    BINDING.lastIndex = 0;
    for (let m = BINDING.exec(text); m; m = BINDING.exec(text)) {
      if (inComment(m.index)) continue;
      const s = m.index + 1 + m[1].length + 1;
      out.push({ key: m[2], dynamic: false, via: `{${m[1]}>}`, start: s, end: s + m[2].length });
    }
    return out;
  },
};
