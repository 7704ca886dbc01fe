/**
 * Where a container (class, struct, interface …) is declared in a unit's text. A container too
 * large for one chunk has no chunk of its own: its head is a fragment named by it, or its
 * declaration opens its first member's chunk; the agent tools (definitions, references) and
 * `fathom eval`'s mining both find it by this line.
 */
import { escapeRegExp } from '../util/regexp';

/** How far into a cut container's first piece its declaration is looked for: past a long doc comment (a PHP docblock of 10-30 lines). */
export const DECLARATION_LINES = 40;

/**
 * The kind of the container `leaf` that a line of `text` (its first DECLARATION_LINES) declares:
 * `class X`, `pub struct X`, `export default class X`, `public sealed record X`, `interface X`,
 * Go's `type X struct` … or undefined.
 */
export function declaredKind(text: string, leaf: string): string | undefined {
  const name = escapeRegExp(leaf);
  const head = text.split('\n').slice(0, DECLARATION_LINES).join('\n');
  const re = new RegExp(
    `^[ \\t]*(?:(?:export|default|abstract|public|private|protected|internal|static|final|sealed|partial|readonly|data|open|pub(?:\\([^)]*\\))?|unsafe)\\s+)*(class|struct|interface|trait|impl|enum|record|namespace|module|object)\\s+${name}\\b|^type\\s+${name}\\s+(struct|interface)\\b`,
    'm',
  );
  const m = re.exec(head);
  return m ? (m[1] ?? m[2]) : undefined;
}
