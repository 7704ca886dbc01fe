/**
 * What an agent's query asks for, when it is a sentence: a commit subject, an issue title, a
 * task ("Fixed #33282 -- Fixed a crash when OR'ing subquery and aggregation lookups."). The
 * keyword engine scores every word of a query; in such a sentence most words say nothing about
 * where the code is (fixed, crash, when, some, edge, cases) and the few that do are the
 * identifiers (`Query.clear_ordering()`, `URLValidator`, `log_response`) and the domain words
 * that also name files (archive, storage, serializer). `analyzeQuery` splits the sentence into:
 *
 * - `words`: the content words (stop words and change-log verbs dropped, tracker references
 *   like `#33282`, `CVE-2024-39330`, `Refs`, URLs dropped) — the main query;
 * - `identifiers`: tokens written like code (snake_case, camelCase, dotted names, a call `f()`,
 *   `backticked`), each searched on its own as well, since one of them usually names the place;
 * - `pathTerms`: lowercased terms of both with a weight, matched against the terms of file
 *   paths (file-rank.ts): a content word and a segment of an identifier (`clear_ordering` →
 *   clear, ordering; `django.utils.text` → django, utils, text) weigh 1, a camel-case part
 *   (`URLValidator` → url, validator) weighs `PART_WEIGHT`: `KZoomControl.vue` is no file
 *   of `getZoomControl`.
 *
 * A short query (an identifier, a few words, a path) is left as it is: it already says what it
 * wants, and `passThrough` is true.
 */
import { sStem, terms } from '../index/terms';

/**
 * Words that say what kind of change or sentence it is, not where: English function words and
 * the verbs and nouns of change logs. Kept small and generic (no word of a benchmark's tasks
 * that names code).
 */
const STOP = new Set(
  (
    'a an and are as at be been but by can could do does did for from had has have how i if in into is it its me my no not of on or our should so some such than that the their them then there these this those to too was we were what when where which while who why will with would you your ' +
    'also again all any both each every more most much other same very only just even still yet already always never sometimes ' +
    'add added adding adds allow allowed allows avoid avoided avoids change changed changes correct corrected corrects ensure ensured ensures fix fixed fixes fixing handle handled handles improve improved improves make made makes making prevent prevented prevents remove removed removes support supported supports update updated updates use used uses using work works properly correctly possible potential potentially issue issues problem problems bug bugs case cases edge crash crashes crashed error errors wrong instead old now refs ref see closes close closed regression hack workaround via about after before like don doesn didn isn t s'
  ).split(' '),
);

/** A token written like code: `snake_case`, `camelCase`/`URLValidator`, `a.b`, `f()`, `$x`, `--flag`. */
function looksLikeIdentifier(raw: string, called: boolean, quoted: boolean): boolean {
  if (quoted || called) return /[A-Za-z_$]/.test(raw);
  if (/^[\d.]+$/.test(raw) || raw.length < 4) return false; // 3.9, 1.2.3, DoS
  return /[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z0-9]_|_[A-Za-z0-9]|^\$|[A-Za-z_$][\w$]*\.[A-Za-z_$]/.test(raw);
}

export interface AgentQuery {
  /** The query as typed. */
  raw: string;
  /** True when the query is short or code-like: search it as it is. */
  passThrough: boolean;
  /** Content words (lowercased, in order, once each). */
  words: string[];
  /** Tokens written like code, as typed (call parentheses and quotes dropped), once each. */
  identifiers: string[];
  /** The main query text: identifiers and content words (a short query: as typed, without a Conventional Commits head's type). */
  text: string;
  /** Lowercased terms (and their s-stems) to match against path terms, with their weight. */
  pathTerms: Map<string, number>;
  /**
   * Tokens written like a file or folder name (`docker.service`, `setup.cfg`, `<stdint.h>`,
   * `pkg/signal`, `cli/command:`), lowercased: a file of that name, or under that folder, is a
   * place the task names outright.
   */
  fileNames: string[];
  /** The task is about tests (`Skip network tests`, `skip_flaky_test`): test files are its places. */
  aboutTests: boolean;
  /** The task is about dependencies (`Remove run-time dependency on cffi`, `Upgrade to pyo3 0.16`): manifests are among its places. */
  aboutDependencies: boolean;
  /** The task is about documentation (`Fix typos in the docs`, `Update README`): prose files are its places. */
  aboutDocs: boolean;
  /** The task is about translations (`Update German translation`): locale files are its places. */
  aboutTranslations: boolean;
  /** The task is about a release (`Release 2.0.1`, `release: 3.1.0`, `Update changelog`): the change log is one of its places. */
  aboutRelease: boolean;
}

const MAX_IDENTIFIERS = 6;
const MAX_FILE_NAMES = 4;
/** Words of a task about tests (on their own or as parts of an identifier). */
const TEST_WORDS = new Set(['test', 'tests', 'testing', 'testsuite', 'unittest', 'unittests', 'spec', 'specs']);
/** Words of a task about what a project depends on. */
const DOC_WORDS = new Set(['doc', 'docs', 'documentation', 'document', 'documented', 'readme', 'typo', 'typos', 'spelling', 'manpage', 'manpages', 'man', 'manual', 'guide', 'tutorial', 'howto', 'changelog', 'wording', 'sphinx']);
const TRANSLATION_WORDS = new Set(['translation', 'translations', 'translate', 'translated', 'locale', 'locales', 'i18n', 'l10n', 'localization', 'localisation', 'language', 'languages']);
const RELEASE_WORDS = new Set(['release', 'releases', 'released', 'releasing', 'changelog', 'changelogs']);
const DEPENDENCY_WORDS = new Set(['dependency', 'dependencies', 'depend', 'depends', 'dep', 'deps', 'requirement', 'requirements', 'upgrade', 'upgrades', 'downgrade', 'bump', 'pin', 'unpin']);

/** A token written like a file name (`a.ext`, ext with a letter) or a relative folder/file path (`a/b`). */
function fileNameOf(tok: string): string | undefined {
  const t = tok.replace(/[:,;]+$/, '').replace(/^\.\//, '').toLowerCase();
  if (t.length < 3 || /^[a-z]+:\/\//.test(t)) return undefined;
  if (/^[\w.-]+(?:\/[\w.-]+)+\/?$/.test(t) && /[a-z]/.test(t)) return t.replace(/\/$/, '');
  if (/^[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,9}$/.test(t) && !/^[\d.]+$/.test(t)) return t;
  return undefined;
}
/** Path weight of a camel-case part of an identifier, relative to a word's. */
export const PART_WEIGHT = 0.5;

/**
 * Types of a Conventional Commits subject (`fix(binding): …`, `feat(router)!: …`, `docs: …`):
 * they say what kind of change it is, not where. Written with a scope in parentheses any
 * lowercase word is one; without, only these.
 */
const COMMIT_TYPES = new Set(['feat', 'feature', 'fix', 'bugfix', 'hotfix', 'chore', 'docs', 'doc', 'refactor', 'perf', 'style', 'test', 'tests', 'build', 'ci', 'revert', 'release', 'deps', 'wip', 'security', 'types', 'enhancement', 'improvement', 'breaking']);
const COMMIT_HEAD = /^([a-z]{2,12})(?:\(([^()]{1,80})\))?!?:\s+(?=\S)/;

/**
 * The Conventional Commits head of a subject, if it has one: its type and scopes
 * (`fix(binding):` → fix, [binding]; `feat(router, tree)!:` → feat, [router, tree]), and the
 * subject without it.
 */
export function commitHead(subject: string): { type: string; scopes: string[]; rest: string } | undefined {
  const m = COMMIT_HEAD.exec(subject);
  if (!m || (m[2] === undefined && !COMMIT_TYPES.has(m[1]))) return undefined;
  return { type: m[1], scopes: (m[2] ?? '').split(/[,\s]+/).filter(Boolean), rest: subject.slice(m[0].length) };
}

/**
 * A merge commit's subject says nothing but its branch (`Merge pull request #3301 from
 * appleboy/fix-binding-time`, `Merge branch 'feature/route-groups' into master`): the branch
 * name's words are the task (`fix binding time`), its owner and the target branch are not.
 */
export function mergeBranchWords(subject: string): string | undefined {
  const pr = /^Merge pull request #\d+ from [\w.-]+\/(\S+)/i.exec(subject);
  const branch = pr?.[1] ?? /^Merge (?:remote-tracking )?branch '([^']+)'/i.exec(subject)?.[1];
  if (!branch) return undefined;
  // a remote's name is not the task's; a version branch (`2.3.x`) names no place
  const words = branch.replace(/^(?:origin|upstream)\//, '').split(/[-_/.]+/).filter((w) => w && !/^\d+$/.test(w));
  return words.some((w) => w.length >= 3) ? words.join(' ') : undefined;
}

export function analyzeQuery(query: string): AgentQuery {
  const raw = query.trim();
  // a Conventional Commits head: its scopes name the place (a package, a folder, a file), its
  // type only the kind of change (docs and tests say which kind of file, below)
  const head = commitHead(raw);
  const subject = head ? [...head.scopes, head.rest].join(' ') : (mergeBranchWords(raw) ?? raw);
  const tokens = subject.split(/\s+/).filter(Boolean);
  const words: string[] = [];
  const identifiers: string[] = [];
  const seenW = new Set<string>();
  const seenI = new Set<string>();
  const fileNames: string[] = [];
  for (let tok of tokens) {
    if (/^(?:https?|ftp):\/\//i.test(tok)) continue; // a link: its words are a host's
    if (/^\(?#\d+\)?[.,:;]?$/.test(tok) || /^CVE-\d{4}-\d+/i.test(tok)) continue; // tracker references
    const quoted = /^[`'"].*[`'"][.,:;)]*$/.test(tok) && tok.length > 2;
    tok = tok.replace(/^[`'"([{<]+|[`'">\]}),.:;!?]+$/g, '');
    const fileName = /[(]/.test(tok) ? undefined : fileNameOf(tok);
    if (fileName && !fileNames.includes(fileName) && fileNames.length < MAX_FILE_NAMES) fileNames.push(fileName);
    const called = /\([^)]*\)?$/.test(tok);
    tok = tok.replace(/\(.*$/, '');
    if (!tok) continue;
    if (looksLikeIdentifier(tok, called, quoted)) {
      const id = tok.replace(/^[^\w$]+|[^\w$]+$/g, '');
      if (id && !seenI.has(id) && identifiers.length < MAX_IDENTIFIERS) {
        seenI.add(id);
        identifiers.push(id);
      }
      continue;
    }
    for (const w of tok.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (STOP.has(w) || /^\d+$/.test(w) || w.length < 2 || seenW.has(w)) continue;
      seenW.add(w);
      words.push(w);
    }
  }
  const wordCount = tokens.length;
  // short queries (an identifier, a few words, a path) ask for exactly what they say
  const passThrough = wordCount <= 3 || (!words.length && !identifiers.length);
  const text = passThrough ? subject : [...identifiers, ...words].join(' ');
  const pt = new Map<string, number>();
  const put = (t: string, w: number) => {
    if (t.length < 3 || STOP.has(t)) return;
    for (const x of [t, sStem(t)]) pt.set(x, Math.max(pt.get(x) ?? 0, w));
  };
  for (const w of words) put(w, 1);
  for (const id of identifiers) {
    for (const seg of id.split(/[._\-/:$]+/).filter(Boolean)) {
      put(seg.toLowerCase(), 1);
      for (const part of terms(seg)) put(part, PART_WEIGHT);
    }
  }
  const allTerms = new Set([...words, ...identifiers.flatMap((id) => terms(id))].map((t) => t.toLowerCase()));
  const has = (set: Set<string>) => [...allTerms].some((t) => set.has(t));
  const type = head?.type ?? '';
  return {
    raw,
    passThrough,
    words,
    identifiers,
    text,
    pathTerms: pt,
    fileNames,
    aboutTests: has(TEST_WORDS) || type === 'test' || type === 'tests',
    aboutDependencies: has(DEPENDENCY_WORDS) || type === 'deps',
    aboutDocs: has(DOC_WORDS) || type === 'docs' || type === 'doc',
    aboutTranslations: has(TRANSLATION_WORDS),
    aboutRelease: has(RELEASE_WORDS) || type === 'release',
  };
}
