/**
 * Fathom's settings → the worker's options. Pure: the extension passes each setting's
 * `inspect()` (default, user, workspace and folder values), so the workspace-trust rule is
 * applied here and unit-tested:
 *
 * In an untrusted workspace, settings that make Fathom load or fetch something (the model id,
 * the local model folder, downloads, threads) come from the user's own settings only; a
 * workspace's `.vscode/settings.json` cannot point Fathom at a model file or turn on downloads.
 * (package.json lists them as `restrictedConfigurations` too, so VS Code itself does the same.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_MODEL } from '../index/embedder';
import { isStaticModel, STATIC_MODEL_FILE, STATIC_MODEL_NAME } from '../index/static-model';
import type { FileSelection } from '../workspace/files';
import type { WorkerInitOptions } from '../service/protocol';

/** What `WorkspaceConfiguration.inspect(key)` answers (the parts Fathom reads). */
export interface Inspected<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export type Inspect = <T>(key: string) => Inspected<T> | undefined;

/** The settings taken from user settings only in an untrusted workspace. */
export const RESTRICTED_SETTINGS = ['model.id', 'model.localPath', 'model.allowDownload', 'model.threads', 'index.remote'] as const;

export interface FathomSettings {
  include: string[];
  exclude: string[];
  useEditorExcludes: boolean;
  maxFileSizeKB: number;
  maxTokens: number;
  jsonCategories: string[];
  modelId: string;
  localModelPath: string;
  allowDownload: boolean;
  threads: number;
  /** With a transformers.js model, Fathom's own model beside it (`fathom.model.withFathomModel`); false: that model alone. */
  withFathomModel: boolean;
  dense: boolean;
  rrfK: number;
  maxResults: number;
  /** The project's own translate functions (`fathom.i18n.functions`), found like `$t`. */
  i18nFunctions: string[];
  /** Globs of the locale files (`fathom.i18n.localeGlobs`), overriding discovery; empty: discover. */
  i18nLocaleGlobs: string[];
  /** A team index (`fathom.index.remote`, a postgres:// URL); empty: none. */
  remote: string;
}

export const DEFAULTS: FathomSettings = {
  include: [],
  exclude: [],
  useEditorExcludes: true,
  maxFileSizeKB: 512,
  maxTokens: 256,
  jsonCategories: ['schema', 'i18n', 'docs-meta', 'config', 'other'],
  modelId: DEFAULT_MODEL,
  localModelPath: '',
  allowDownload: false,
  threads: 0,
  withFathomModel: true,
  dense: true,
  rrfK: 60,
  maxResults: 50,
  i18nFunctions: [],
  i18nLocaleGlobs: [],
  remote: '',
};

/** The effective value: folder over workspace over user over default, user-only when restricted. */
export function effective<T>(i: Inspected<T> | undefined, fallback: T, userOnly: boolean): T {
  if (!i) return fallback;
  if (!userOnly) {
    if (i.workspaceFolderValue !== undefined) return i.workspaceFolderValue;
    if (i.workspaceValue !== undefined) return i.workspaceValue;
  }
  if (i.globalValue !== undefined) return i.globalValue;
  if (i.defaultValue !== undefined) return i.defaultValue;
  return fallback;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const num = (v: unknown, fallback: number, min: number, max: number): number => (typeof v === 'number' && Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : fallback);

/** Reads every Fathom setting (`inspect` is `getConfiguration('fathom', scope).inspect`). */
export function readSettings(inspect: Inspect, trusted: boolean): FathomSettings {
  const get = <K extends keyof FathomSettings>(key: string, k: K): unknown => effective<unknown>(inspect(key), DEFAULTS[k], !trusted && (RESTRICTED_SETTINGS as readonly string[]).includes(key));
  return {
    include: strings(get('files.include', 'include')),
    exclude: strings(get('files.exclude', 'exclude')),
    useEditorExcludes: get('files.useEditorExcludes', 'useEditorExcludes') !== false,
    maxFileSizeKB: num(get('chunking.maxFileSizeKB', 'maxFileSizeKB'), DEFAULTS.maxFileSizeKB, 1, 100_000),
    maxTokens: Math.round(num(get('chunking.maxTokens', 'maxTokens'), DEFAULTS.maxTokens, 32, 512)),
    jsonCategories: strings(get('json.categories', 'jsonCategories')),
    modelId: String(get('model.id', 'modelId') || DEFAULT_MODEL).trim() || DEFAULT_MODEL,
    localModelPath: String(get('model.localPath', 'localModelPath') ?? '').trim(),
    allowDownload: get('model.allowDownload', 'allowDownload') === true,
    threads: Math.round(num(get('model.threads', 'threads'), 0, 0, 64)),
    withFathomModel: get('model.withFathomModel', 'withFathomModel') !== false,
    dense: get('search.dense', 'dense') !== false,
    rrfK: num(get('search.rrfK', 'rrfK'), DEFAULTS.rrfK, 1, 10_000),
    maxResults: Math.round(num(get('search.maxResults', 'maxResults'), DEFAULTS.maxResults, 1, 500)),
    i18nFunctions: strings(get('i18n.functions', 'i18nFunctions')).map((f) => f.trim()).filter((f) => /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(f)),
    i18nLocaleGlobs: strings(get('i18n.localeGlobs', 'i18nLocaleGlobs')).map((g) => g.trim()).filter(Boolean),
    remote: String(get('index.remote', 'remote') ?? '').trim(),
  };
}

/**
 * The model folder a VSIX carries (`npm run package -- --model DIR` puts it under
 * `<extension>/models/<name>/`): the first folder there, by name, with a config.json and
 * onnx/model_quantized.onnx; undefined when there is none.
 */
export function bundledModel(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, 'models');
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return undefined;
  }
  for (const n of names) {
    const m = path.join(dir, n);
    if (fs.existsSync(path.join(m, 'config.json')) && fs.existsSync(path.join(m, 'onnx', 'model_quantized.onnx'))) return m;
  }
  return undefined;
}

/** What the user answered when asked for the model (remembered in the extension's global state). */
export type ModelChoice = 'download' | 'notNow' | 'local';

export interface ModelEnv {
  /** The extension's global storage: downloads land there, shared by every workspace. */
  cacheDir: string;
  /** Relative `fathom.model.localPath` values are taken from here (the first folder). */
  localPathBase?: string;
  /** A model folder inside the extension (`bundledModel`): used when no local folder is set. */
  bundledModelPath?: string;
  /** The workspace is trusted: only then is a relative `fathom.model.localPath` taken from it. */
  trusted?: boolean;
  /** "Download" was chosen in the prompt: downloads are allowed without the setting. */
  downloadChosen?: boolean;
}

/**
 * The worker's `init` options. With `fathom.model.id` at its default, Fathom's own model (no
 * download). For a transformers.js model, it comes from, in this order: `fathom.model.localPath`,
 * the model bundled in the VSIX, the download cache (a model downloaded once is found there
 * without the network), a download — only when `fathom.model.allowDownload` is on or the user
 * chose "Download" when asked.
 */
export function initOptionsOf(s: FathomSettings, env: ModelEnv): WorkerInitOptions {
  const localModelPath = localModelPathOf(s, env).path;
  // Fathom's own model ships with it; a model folder the user set (fathom.model.localPath), or
  // one the VSIX was packaged with, is theirs to use even with the default id
  const own = isStaticModel(s.modelId);
  const userFolder = (!!localModelPath && !localModelPath.endsWith('.bin')) || (!localModelPath && !!env.bundledModelPath);
  return {
    chunk: { maxTokens: s.maxTokens, maxFileBytes: s.maxFileSizeKB * 1024, jsonCategories: s.jsonCategories },
    embedder: s.dense
      ? {
          model: own && userFolder ? undefined : s.modelId,
          localModelPath: own && !userFolder ? localModelPath || undefined : localModelPath || env.bundledModelPath || undefined,
          allowDownload: s.allowDownload || (!localModelPath && !env.bundledModelPath && env.downloadChosen === true),
          cacheDir: env.cacheDir,
          threads: s.threads > 0 ? s.threads : undefined,
          ...(own || s.withFathomModel ? {} : { alone: true }),
        }
      : false,
    ...(remoteUrlOf(s).url ? { remote: remoteUrlOf(s).url } : {}),
  };
}

/** The team index URL of `fathom.index.remote`, or why it is not used (`note`: not a postgres:// URL). */
export function remoteUrlOf(s: FathomSettings): { url?: string; note?: string } {
  if (!s.remote) return {};
  if (/^postgres(ql)?:\/\/\S+$/i.test(s.remote)) return { url: s.remote };
  return { note: 'fathom.index.remote is not a postgres:// URL: it is left out, searches are local' };
}

/**
 * The model folder to use. A relative `fathom.model.localPath` is taken from the first workspace
 * folder only in a trusted workspace: in Restricted Mode the workspace must not supply the model
 * files, so a relative path (even the user's own) is not resolved there — `note` says why.
 * Without a base (`localPathBase`), a relative path is kept as written.
 */
export function localModelPathOf(s: FathomSettings, env: { localPathBase?: string; trusted?: boolean }): { path?: string; note?: string } {
  const p = s.localModelPath;
  if (!p) return {};
  if (isAbsolute(p) || !env.localPathBase) return { path: p };
  if (env.trusted !== true) {
    return { note: `fathom.model.localPath "${p}" is relative: in Restricted Mode it is not taken from the untrusted workspace folder; give an absolute path in your user settings` };
  }
  return { path: joinPath(env.localPathBase, p) };
}

/**
 * Why the worker went keyword-only, for a user: one short line (`text`) — the details (`detail`,
 * the worker's reason) go to the tooltip and the log — and whether the model actions (download,
 * a local folder) apply.
 */
export interface KeywordOnlyAdvice {
  text: string;
  detail: string;
  /** Offer "Download" and "Use a local folder…" (search by meaning is on, the model is missing). */
  modelActions: boolean;
}

export function keywordOnlyAdvice(reason: string | undefined, s: FathomSettings, env: { downloadChosen?: boolean } = {}): KeywordOnlyAdvice | undefined {
  if (!reason) return undefined;
  if (!s.dense) return { text: 'Keyword-only: search by meaning is off (fathom.search.dense).', detail: reason, modelActions: false };
  // Fathom's own model ships with it: nothing to download, the installation is damaged
  if (reason.includes(STATIC_MODEL_FILE) || reason.includes(STATIC_MODEL_NAME)) return { text: "Keyword-only: Fathom's own model could not be loaded.", detail: reason, modelActions: false };
  if (/download/i.test(reason) && /fail/i.test(reason) && (s.allowDownload || env.downloadChosen)) return { text: 'Keyword-only: the model download failed.', detail: reason, modelActions: true };
  if (s.localModelPath) return { text: 'Keyword-only: the model folder could not be loaded.', detail: reason, modelActions: true };
  return { text: 'Keyword-only: no embedding model yet.', detail: reason, modelActions: true };
}

/**
 * The file selection of one folder: Fathom's include/exclude, plus (unless turned off) the
 * editor's `files.exclude` and `search.exclude` — their keys whose value is `true`. Patterns
 * with a `when` clause (sibling conditions) are not applied: they are kept out, not guessed.
 */
export function selectionOf(s: FathomSettings, filesExclude: unknown, searchExclude: unknown): FileSelection {
  const enabled = (o: unknown) => (o && typeof o === 'object' ? Object.entries(o as Record<string, unknown>).filter(([, v]) => v === true).map(([k]) => k) : []);
  const exclude = [...s.exclude, ...(s.useEditorExcludes ? [...enabled(filesExclude), ...enabled(searchExclude)] : [])];
  return { include: [...s.include], exclude: [...new Set(exclude)] };
}

/** Settings whose change needs a new `init` (and so a reload of every folder). */
export function needsReinit(a: FathomSettings, b: FathomSettings): boolean {
  return JSON.stringify(initOptionsOf(a, { cacheDir: '' })) !== JSON.stringify(initOptionsOf(b, { cacheDir: '' }));
}

const isAbsolute = (p: string) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
const joinPath = (a: string, b: string) => `${a.replace(/[\\/]+$/, '')}/${b}`;

/** The i18n options every i18n request of the editor carries (undefined fields: the defaults). */
export function i18nConfigOf(s: FathomSettings): { localeGlobs?: string[]; functions?: string[] } {
  return { localeGlobs: s.i18nLocaleGlobs.length ? [...s.i18nLocaleGlobs] : undefined, functions: s.i18nFunctions.length ? [...s.i18nFunctions] : undefined };
}
