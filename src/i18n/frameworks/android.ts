/**
 * Android: the string resources of formats/android.ts as code names them. In Kotlin and Java
 * (read by frameworks/jvm.ts, through `androidCodeRefs`): `R.string.<name>`,
 * `R.plurals.<name>`, `R.array.<name>` (also through a package, `com.example.app.R.string.x`;
 * Compose's `stringResource(R.string.x)` is one of them). In XML outside the values folders
 * (layouts, menus, navigation graphs, preferences, `AndroidManifest.xml`): `@string/<name>`,
 * `@plurals/<name>`, `@array/<name>`. The platform's own resources (`android.R.string.ok`,
 * `@android:string/ok`) are not the app's keys. A scanner that skips `//` and `/* *\/` comments
 * (`<!-- -->` in XML).
 */
import type { Raw } from '../types';
import { ANDROID_VALUES } from '../formats/android';
import { commentMask, type Framework } from './common';

const CODE_REF = /(?<![\w$])((?:[A-Za-z_]\w*\.)*)R\.(string|plurals|array)\.([A-Za-z_]\w*)/g;
const XML_REF = /@(string|plurals|array)\/([A-Za-z_][\w.]*)/g;

/** Android's `R.string.x` / `R.plurals.x` / `R.array.x` in Kotlin or Java code (frameworks/jvm.ts reads those files), comments left out. */
export function androidCodeRefs(text: string, inComment: (off: number) => boolean, out: Raw[]): void {
  if (!text.includes('R.')) return;
  CODE_REF.lastIndex = 0;
  for (let m = CODE_REF.exec(text); m; m = CODE_REF.exec(text)) {
    if (inComment(m.index) || /(?:^|\.)android\.$/.test(m[1])) continue; // the platform's resources
    const end = m.index + m[0].length;
    out.push({ key: m[3], dynamic: false, via: `R.${m[2]}`, start: end - m[3].length, end });
  }
}

/** `R.string.x` or `@string/x`: the Android build checks that the resource exists already. */
export function androidCompileChecked(u: { via: string }): boolean {
  return /^(?:R\.|@)(?:string|plurals|array)$/.test(u.via);
}

export const androidFramework: Framework = {
  name: 'Android',
  // XML that refers to resources; the values folders hold them (formats/android.ts)
  claims: (rel) => /(?:^|\/)AndroidManifest\.xml$/i.test(rel) || (/(?:^|\/)res\/(?:[^/]+\/)+[^/]+\.xml$/i.test(rel) && !ANDROID_VALUES.test(rel) && !/\.(?:view|fragment)\.xml$/i.test(rel)),
  find(_rel, text) {
    const out: Raw[] = [];
    if (!text.includes('@')) return out;
    const inComment = commentMask(text, [['<!--', '-->']]);
    XML_REF.lastIndex = 0;
    for (let m = XML_REF.exec(text); m; m = XML_REF.exec(text)) {
      if (inComment(m.index)) continue;
      const end = m.index + m[0].length;
      out.push({ key: m[2], dynamic: false, via: `@${m[1]}`, start: end - m[2].length, end });
    }
    return out;
  },
};
