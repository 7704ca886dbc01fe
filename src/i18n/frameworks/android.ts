/**
 * Android: the string resources of formats/android.ts as code names them. In Kotlin and Java
 * (`.kt`, `.kts`, `.java`): `R.string.<name>`, `R.plurals.<name>`, `R.array.<name>` (also
 * through a package, `com.example.app.R.string.x`; Compose's `stringResource(R.string.x)` is one
 * of them). In XML outside the values folders (layouts, menus, navigation graphs, preferences,
 * `AndroidManifest.xml`): `@string/<name>`, `@plurals/<name>`, `@array/<name>`. The platform's
 * own resources (`android.R.string.ok`, `@android:string/ok`) are not the app's keys. A scanner
 * that skips `//` and `/* *\/` comments (`<!-- -->` in XML).
 */
import type { Raw } from '../usages';
import { ANDROID_VALUES } from '../formats/android';
import { commentMask, type Framework } from './common';

const CODE_REF = /(?<![\w$])((?:[A-Za-z_]\w*\.)*)R\.(string|plurals|array)\.([A-Za-z_]\w*)/g;
const XML_REF = /@(string|plurals|array)\/([A-Za-z_][\w.]*)/g;

export const androidFramework: Framework = {
  name: 'Android',
  claims(rel) {
    if (/\.(?:kt|kts|java)$/i.test(rel)) return true;
    // XML that refers to resources; the values folders hold them (formats/android.ts)
    return /(?:^|\/)AndroidManifest\.xml$/i.test(rel) || (/(?:^|\/)res\/(?:[^/]+\/)+[^/]+\.xml$/i.test(rel) && !ANDROID_VALUES.test(rel) && !/\.(?:view|fragment)\.xml$/i.test(rel));
  },
  find(rel, text) {
    const out: Raw[] = [];
    const xml = /\.xml$/i.test(rel);
    if (!(xml ? text.includes('@') : text.includes('R.'))) return out;
    const inComment = commentMask(text, xml ? [['<!--', '-->']] : [['//', '\n'], ['/*', '*/']]);
    const re = xml ? XML_REF : CODE_REF;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (inComment(m.index)) continue;
      if (!xml && /(?:^|\.)android\.$/.test(m[1])) continue; // the platform's resources
      const type = xml ? m[1] : m[2];
      const name = xml ? m[2] : m[3];
      const end = m.index + m[0].length;
      out.push({ key: name, dynamic: false, via: xml ? `@${type}` : `R.${type}`, start: end - name.length, end });
    }
    return out;
  },
};
