/**
 * Usage extractors of frameworks whose files are not JS/TS or Vue (those are in usages.ts):
 * one module each, registered here.
 */
import { androidFramework } from './android';
import { angularFramework } from './angular';
import { appleFramework } from './apple';
import type { Framework } from './common';
import { dartFramework } from './dart';
import { dotnetFramework } from './dotnet';
import { gettextFramework } from './gettext';
import { handlebarsFramework } from './handlebars';
import { jspFramework, jvmFramework } from './jvm';
import { laravelFramework } from './laravel';
import { railsFramework } from './rails';
import { svelteFramework } from './svelte';
import { ui5Framework } from './ui5';

export type { Framework } from './common';

export const FRAMEWORKS: Framework[] = [svelteFramework, angularFramework, handlebarsFramework, laravelFramework, railsFramework, dartFramework, ui5Framework, gettextFramework, androidFramework, jvmFramework, jspFramework, appleFramework, dotnetFramework];

/** The extractor of a (non-JS, non-Vue) file, or undefined. */
export function frameworkOf(rel: string): Framework | undefined {
  return FRAMEWORKS.find((f) => f.claims(rel));
}
