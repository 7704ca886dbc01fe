/**
 * Usage extractors of frameworks whose files are not JS/TS or Vue (those are in usages.ts):
 * one module each, registered here.
 */
import { androidCompileChecked, androidFramework } from './android';
import { angularFramework } from './angular';
import { appleFramework, textIsKey } from './apple';
import type { Framework } from './common';
import { dartFramework } from './dart';
import { dotnetCompileChecked, dotnetFramework } from './dotnet';
import { gettextFramework } from './gettext';
import { goFramework } from './go';
import { handlebarsFramework } from './handlebars';
import { jspFramework, jvmFramework } from './jvm';
import { laravelFramework } from './laravel';
import { qtFramework } from './qt';
import { railsFramework } from './rails';
import { rustFramework } from './rust';
import { svelteFramework } from './svelte';
import { ui5Framework } from './ui5';
import { webextensionFramework } from './webextension';

export type { Framework } from './common';

export const FRAMEWORKS: Framework[] = [svelteFramework, angularFramework, handlebarsFramework, laravelFramework, railsFramework, dartFramework, ui5Framework, gettextFramework, androidFramework, jvmFramework, jspFramework, appleFramework, dotnetFramework, rustFramework, qtFramework, goFramework, webextensionFramework];

/** The extractor of a (non-JS, non-Vue) file, or undefined. */
export function frameworkOf(rel: string): Framework | undefined {
  return FRAMEWORKS.find((f) => f.claims(rel));
}

/**
 * Usages that key health and the editor's diagnostics never report as "undefined": a key the
 * app's own build checks already (Android's `R.string.x` and `@string/x`, .NET's generated
 * resource class: a resource Fathom does not read as text, an icon, is no error either), or a
 * SwiftUI view's literal, whose text is shown when no locale defines it.
 */
export function undefinedIsNoFinding(u: { file: string; via: string }): boolean {
  return androidCompileChecked(u) || dotnetCompileChecked(u) || textIsKey(u);
}
