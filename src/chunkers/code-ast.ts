/**
 * Python, Go, Rust, Java, C#, C, C++, PHP and Ruby by syntax tree (tree-sitter, see treesitter.ts
 * for loading).
 *
 * Each language only says which nodes are units and what they are called; how units become
 * chunks (fit → one chunk, containers → their members plus fragments, others cut at natural
 * boundaries, small siblings grouped `A.{x, y}`, leftovers as module chunks) is units.ts, the
 * same rules as JS/TS.
 *
 * Units: Python functions, classes (nested classes are members of theirs), methods, decorators
 * kept with what they decorate (they are inside `decorated_definition`), docstrings (inside the
 * body), module-level assignments over several lines (`ROUTES = {…}`, kind const), and those an
 * `if`, `try` or `with` at module or class level defines (`if has_crypto: class RSAAlgorithm`,
 * its `if` line joined to it); Go functions, methods (named `Receiver.method`, parent the receiver type), structs,
 * interfaces, type declarations, single consts/vars; Rust functions, structs, enums, unions,
 * traits and their items, `impl` blocks and their items (`Point.fmt`), `mod` blocks with
 * their items, type aliases, consts/statics, `macro_rules!`; Java classes, records, interfaces,
 * enums (nested types as members), methods and constructors; C# namespaces (a block, or a
 * file-scoped `namespace X;` holding the rest of the file) with their members, classes, structs,
 * records, interfaces, enums (nested types as members), methods, constructors, operators,
 * indexers (`Type.this`), properties (accessor bodies included), events, delegates (kind type),
 * named `Namespace.Outer.Inner.Method`; C/C++ function definitions (`Widget::draw` outside its
 * class → method `Widget.draw`), classes, structs, unions, enums (`typedef struct {…} T;` too;
 * inline methods and nested types as members), namespaces with their members, templates (the
 * `template<…>` line kept with what it declares), `#define`s over several lines (kind macro);
 * prototypes and one-line `#define`s are module code, and include guards, `#if` blocks and
 * `extern "C" {…}` are see-through; PHP classes, interfaces, traits, enums (methods and
 * constants as members), functions, namespaces (a block, or `namespace X;` holding what follows
 * up to the next one; `App\Billing` → `App.Billing`), HTML outside `<?php … ?>` as module code;
 * Ruby classes and modules (kind namespace) with their members, methods (`def self.build` and
 * those in `class << self` → `Invoice.build`), top-level `def`s as functions; `attr_*` calls and
 * constants stay member or module code. Comments (and Rust attributes) directly above a unit,
 * with no blank line between, stay with it (Java annotations and C#/PHP attributes are inside
 * the node).
 *
 * A unit over budget without member units is cut at the starts of its line-leading syntax
 * nodes, outermost first (statements, then the statements of an over-budget block, …), then
 * at lines, then whitespace: never inside a token unless a single token is over budget.
 */
import type { Node, Tree } from '@vscode/tree-sitter-wasm';
import { FallbackError, type ChunkerOutput, type ResolvedOptions } from './chunker';
import { firstLine, type ChunkContext } from './context';
import type { Range } from '../parse/source-text';
import { commentHeader } from './text';
import { RULES_OF } from './languages';
import { grammar, grammarProblem } from './treesitter';
import type { ChunkKind } from './types';
import { emitUnits, type Unit } from './units';

/** Deeper than this, nested units are not opened and cut points are not sought (lines serve). */
const MAX_DEPTH = 64;

export interface LanguageRules {
  /** Nodes that belong to the next sibling when directly above it (comments, attributes). */
  attaches: (n: Node) => boolean;
  /** The unit a declaration node makes, if any. `parent` is the enclosing unit, if any. */
  unit: (n: Node, parent: Unit | undefined, b: Builder) => Unit | undefined;
  /** Nodes whose children are listed in their place (C include guards, `extern "C" { … }`). */
  transparent?: (n: Node) => boolean;
  /**
   * Module code that only opens a block holding units (Python's `if has_crypto:`, `try:`,
   * `else:`), which joins the chunk after it instead of being a module chunk of its own.
   */
  opener?: RegExp;
}

/** What the rules need from the chunker: text, signatures, member lists. */
interface Builder {
  text: string;
  /** The declaration's first line, up to its body. */
  signature: (n: Node, body: Node | null) => string;
  /** Units among a body's children (comments attached), each with `parent`; only those within [`from`, `to`), if given. */
  members: (body: Node | null, parent: Unit, depth: number, from?: number, to?: number) => Unit[];
  depth: number;
  /** Every top-level declaration is a unit, one-line constants too (`ChunkOptions.declarations`). */
  declarations: boolean;
}

const q = (parent: Unit | undefined, name: string) => (parent ? `${parent.memberPrefix ?? parent.symbol}.${name}` : name);

const fieldText = (n: Node, field: string, text: string): string | undefined => {
  const c = n.childForFieldName(field);
  return c ? text.slice(c.startIndex, c.endIndex) : undefined;
};

// ---------------------------------------------------------------------------------------------
// Python

/**
 * Statements whose blocks may hold definitions at module or class level: `if has_crypto: class
 * RSAAlgorithm …` (PyJWT), `try: … except ImportError: def …`, `if TYPE_CHECKING:`, `with …:`.
 * Where one does, it is see-through (`transparent`): its definitions are units with their names,
 * and a class in it is never cut while it fits. Before, the whole statement was module code, cut
 * by lines with no names (a chunk could start inside a docstring).
 */
const PY_BRANCHING = new Set(['if_statement', 'try_statement', 'with_statement']);
const PY_CLAUSES = new Set(['elif_clause', 'else_clause', 'except_clause', 'except_group_clause', 'finally_clause']);
const PY_DEFINITIONS = new Set(['function_definition', 'class_definition', 'decorated_definition']);

/** One of the statement's blocks (its own, or a clause's) holds a definition, or such a statement. */
function pyDefinesInside(stmt: Node, depth = 0): boolean {
  for (const c of stmt.namedChildren) {
    const block = c?.type === 'block' ? c : c && PY_CLAUSES.has(c.type) ? c.namedChildren.find((x) => x?.type === 'block') : null;
    if (!block) continue;
    for (const s of block.namedChildren) if (s && (PY_DEFINITIONS.has(s.type) || (PY_BRANCHING.has(s.type) && depth < 8 && pyDefinesInside(s, depth + 1)))) return true;
  }
  return false;
}

/** A statement at module or class level: in the module, a class's body, or a see-through statement's block. */
function pyDeclarationLevel(n: Node): boolean {
  const p = n.parent;
  if (p?.type === 'module') return true;
  if (p?.type !== 'block' || !p.parent) return false;
  return p.parent.type === 'class_definition' || pySeeThrough(p.parent);
}

function pySeeThrough(n: Node): boolean {
  if (PY_BRANCHING.has(n.type)) return pyDeclarationLevel(n) && pyDefinesInside(n);
  if (PY_CLAUSES.has(n.type)) return !!n.parent && pySeeThrough(n.parent);
  if (n.type === 'block') return !!n.parent && (PY_BRANCHING.has(n.parent.type) || PY_CLAUSES.has(n.parent.type)) && pySeeThrough(n.parent);
  return false;
}

const python: LanguageRules = {
  attaches: (n) => n.type === 'comment',
  transparent: pySeeThrough,
  opener: /^(?:(?:if|elif|else|try|except|finally|with)\b[^\n]*:[ \t]*(?:#[^\n]*)?(?:\r?\n[ \t]*|$))+$/,
  unit(n, parent, b) {
    if (n.type === 'decorated_definition') {
      const def = n.childForFieldName('definition');
      const u = def ? python.unit(def, parent, b) : undefined;
      if (u) u.range = { start: n.startIndex, end: n.endIndex };
      return u;
    }
    if (n.type === 'function_definition') {
      const name = fieldText(n, 'name', b.text) ?? 'function';
      const inClass = parent?.kind === 'class';
      return { kind: inClass ? 'method' : 'function', symbol: q(parent, name), parent: parent?.symbol, range: { start: n.startIndex, end: n.endIndex }, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
    }
    if (n.type === 'expression_statement' && !parent && n.namedChildCount === 1) {
      // a module-level table or config (`ROUTES = {…}` over several lines) is a named unit;
      // one-line assignments stay module code, like imports (units too when asked: `declarations`)
      const a = n.namedChildren[0];
      const left = a?.type === 'assignment' ? a.childForFieldName('left') : null;
      if (left?.type === 'identifier' && (b.declarations || b.text.slice(n.startIndex, n.endIndex).includes('\n'))) {
        return { kind: 'const', symbol: b.text.slice(left.startIndex, left.endIndex), range: { start: n.startIndex, end: n.endIndex }, signature: firstLine(b.text.slice(n.startIndex, n.endIndex)), boundaries: [] };
      }
      return undefined;
    }
    if (n.type === 'class_definition') {
      const name = fieldText(n, 'name', b.text) ?? 'class';
      const body = n.childForFieldName('body');
      const u: Unit = { kind: 'class', symbol: q(parent, name), parent: parent?.symbol, range: { start: n.startIndex, end: n.endIndex }, signature: b.signature(n, body), boundaries: [] };
      u.members = b.members(body, u, b.depth + 1);
      return u;
    }
    return undefined;
  },
};

// ---------------------------------------------------------------------------------------------
// Go

/** `(s *Server[T])` → `Server`. */
function goReceiverType(recv: Node | null, text: string): string | undefined {
  if (!recv) return undefined;
  const find = (n: Node): string | undefined => {
    if (n.type === 'type_identifier') return text.slice(n.startIndex, n.endIndex);
    for (const c of n.namedChildren) {
      if (!c || c.type === 'identifier') continue;
      const r = find(c);
      if (r) return r;
    }
    return undefined;
  };
  return find(recv);
}

const GO_TYPE_KIND: Record<string, ChunkKind> = { struct_type: 'struct', interface_type: 'interface' };

const go: LanguageRules = {
  attaches: (n) => n.type === 'comment',
  unit(n, parent, b) {
    const range = { start: n.startIndex, end: n.endIndex };
    switch (n.type) {
      case 'function_declaration': {
        const name = fieldText(n, 'name', b.text) ?? 'func';
        return { kind: 'function', symbol: name, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
      }
      case 'method_declaration': {
        const name = fieldText(n, 'name', b.text) ?? 'method';
        const recv = goReceiverType(n.childForFieldName('receiver'), b.text);
        return { kind: 'method', symbol: recv ? `${recv}.${name}` : name, parent: recv, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
      }
      case 'type_declaration': {
        const specs = n.namedChildren.filter((c): c is Node => !!c && (c.type === 'type_spec' || c.type === 'type_alias'));
        if (specs.length === 0) return undefined;
        const one = (s: Node, r: Range, p: Unit | undefined): Unit => {
          const t = s.childForFieldName('type');
          const kind: ChunkKind = (t && GO_TYPE_KIND[t.type]) || 'type';
          return { kind, symbol: fieldText(s, 'name', b.text) ?? 'type', parent: p?.symbol, range: r, signature: firstLine(b.text.slice(r.start, r.end)), boundaries: [] };
        };
        if (specs.length === 1) return one(specs[0], range, parent);
        const u: Unit = { kind: 'type', symbol: specs.map((s) => fieldText(s, 'name', b.text) ?? 'type').join(', '), range, signature: firstLine(b.text.slice(range.start, range.end)), boundaries: [], memberPrefix: '' };
        u.members = specs.map((s) => ({ ...one(s, { start: s.startIndex, end: s.endIndex }, undefined) }));
        return u;
      }
      case 'const_declaration':
      case 'var_declaration': {
        // (a `var ( … )` block holds its specs in a var_spec_list: read when asked, so that the index's units stay as they were)
        const specs = n.namedChildren.flatMap((c) => (c?.type === 'var_spec_list' && b.declarations ? c.namedChildren : [c])).filter((c): c is Node => !!c && (c.type === 'const_spec' || c.type === 'var_spec'));
        const namesOf = (s: Node) => s.childrenForFieldName('name').filter((c): c is Node => !!c).map((c) => b.text.slice(c.startIndex, c.endIndex));
        // `const ( … )` blocks are module code; when asked (`declarations`), a unit whose members are its specs
        if (specs.length !== 1) {
          if (!b.declarations || !specs.length) return undefined;
          const u: Unit = { kind: 'const', symbol: specs.flatMap(namesOf).join(', '), range, signature: firstLine(b.text.slice(range.start, range.end)), boundaries: [], memberPrefix: '' };
          u.members = specs.map((s) => ({ kind: 'const' as ChunkKind, symbol: namesOf(s).join(', ') || 'const', range: { start: s.startIndex, end: s.endIndex }, signature: firstLine(b.text.slice(s.startIndex, s.endIndex)), boundaries: [] }));
          return u;
        }
        return { kind: 'const', symbol: namesOf(specs[0]).join(', ') || 'const', range, signature: firstLine(b.text.slice(range.start, range.end)), boundaries: [] };
      }
      default:
        return undefined;
    }
  },
};

// ---------------------------------------------------------------------------------------------
// Rust

/** The type an impl is for, without path or generics: `impl<T> fmt::Display for Wrapper<T>` → `Wrapper`. */
function rustTypeName(t: Node | null, text: string): string {
  if (!t) return 'impl';
  if (t.type === 'type_identifier' || t.type === 'primitive_type') return text.slice(t.startIndex, t.endIndex);
  const inner = t.childForFieldName('name') ?? t.childForFieldName('type');
  if (inner && inner !== t) return rustTypeName(inner, text);
  const s = text.slice(t.startIndex, t.endIndex);
  const m = /[A-Za-z_][A-Za-z0-9_]*/.exec(s.replace(/^&(?:'\w+\s+)?(?:mut\s+)?/, ''));
  return m ? m[0] : s;
}

const RUST_SIMPLE: Record<string, ChunkKind> = {
  struct_item: 'struct',
  union_item: 'struct',
  enum_item: 'enum',
  type_item: 'type',
  associated_type: 'type',
  const_item: 'const',
  static_item: 'const',
  macro_definition: 'macro',
};

const rust: LanguageRules = {
  attaches: (n) => n.type === 'line_comment' || n.type === 'block_comment' || n.type === 'attribute_item',
  unit(n, parent, b) {
    const range = { start: n.startIndex, end: n.endIndex };
    const inType = parent?.kind === 'impl' || parent?.kind === 'trait';
    const simple = RUST_SIMPLE[n.type];
    if (simple) {
      const name = fieldText(n, 'name', b.text) ?? n.type.replace(/_item$/, '');
      const body = n.childForFieldName('body');
      return { kind: simple, symbol: q(parent, name), parent: parent?.symbol, range, signature: body ? b.signature(n, body) : firstLine(b.text.slice(range.start, range.end)), boundaries: [] };
    }
    switch (n.type) {
      case 'function_item':
      case 'function_signature_item': {
        const name = fieldText(n, 'name', b.text) ?? 'fn';
        return { kind: inType ? 'method' : 'function', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
      }
      case 'trait_item':
      case 'mod_item': {
        const body = n.childForFieldName('body');
        if (!body && n.type === 'mod_item') return undefined; // `mod foo;` is module code
        const name = fieldText(n, 'name', b.text) ?? 'mod';
        const u: Unit = { kind: n.type === 'trait_item' ? 'trait' : 'namespace', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
        u.members = b.members(body, u, b.depth + 1);
        return u;
      }
      case 'impl_item': {
        const type = rustTypeName(n.childForFieldName('type'), b.text);
        const traitNode = n.childForFieldName('trait');
        const trait = traitNode ? rustTypeName(traitNode, b.text) : undefined;
        const self = q(parent, type);
        const body = n.childForFieldName('body');
        const u: Unit = { kind: 'impl', symbol: trait ? `${trait} for ${self}` : self, parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [], memberPrefix: self };
        u.members = b.members(body, u, b.depth + 1);
        return u;
      }
      default:
        return undefined;
    }
  },
};

// ---------------------------------------------------------------------------------------------
// Java (annotations are inside the declaration's `modifiers`; Javadoc is the comment above)

const JAVA_TYPES: Record<string, ChunkKind> = {
  class_declaration: 'class',
  record_declaration: 'class',
  interface_declaration: 'interface',
  annotation_type_declaration: 'interface',
  enum_declaration: 'enum',
};

/** The node holding a Java type's members: its body, or an enum's declarations after the constants. */
function javaMembers(n: Node): Node | null {
  const body = n.childForFieldName('body');
  if (body && n.type === 'enum_declaration') return body.namedChildren.find((c) => c?.type === 'enum_body_declarations') ?? null;
  return body;
}

const java: LanguageRules = {
  attaches: (n) => n.type === 'line_comment' || n.type === 'block_comment',
  unit(n, parent, b) {
    const range = { start: n.startIndex, end: n.endIndex };
    const type = JAVA_TYPES[n.type];
    if (type) {
      const name = fieldText(n, 'name', b.text) ?? 'type';
      const u: Unit = { kind: type, symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
      u.members = b.members(javaMembers(n), u, b.depth + 1);
      return u;
    }
    if ((n.type === 'method_declaration' || n.type === 'constructor_declaration') && parent) {
      const name = fieldText(n, 'name', b.text) ?? 'method';
      return { kind: 'method', symbol: q(parent, name), parent: parent.symbol, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
    }
    return undefined;
  },
};

// ---------------------------------------------------------------------------------------------
// C# (attributes are inside the declaration's `attribute_list`s; `///` docs are comments above).
// A file-scoped `namespace X;` holds every declaration after it: its range runs to the end of
// the file and those declarations are its members.

const CSHARP_TYPES: Record<string, ChunkKind> = {
  class_declaration: 'class',
  struct_declaration: 'struct',
  record_declaration: 'class',
  record_struct_declaration: 'struct',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
};

const CSHARP_MEMBERS: Record<string, ChunkKind> = {
  method_declaration: 'method',
  constructor_declaration: 'method',
  destructor_declaration: 'method',
  operator_declaration: 'method',
  conversion_operator_declaration: 'method',
  indexer_declaration: 'method',
  property_declaration: 'property',
  event_declaration: 'property',
  event_field_declaration: 'property',
};

/** The name of a C# member: its `name` field, a field-like event's variable, `this` for indexers, `operator +`. */
function csharpMemberName(n: Node, text: string): string {
  const name = fieldText(n, 'name', text);
  if (name) return name;
  if (n.type === 'indexer_declaration') return 'this';
  if (n.type === 'event_field_declaration') {
    const v = n.descendantsOfType('variable_declarator')[0];
    const id = v?.childForFieldName('name') ?? v?.namedChildren.find((c) => c?.type === 'identifier');
    if (id) return text.slice(id.startIndex, id.endIndex);
  }
  if (n.type === 'operator_declaration' || n.type === 'conversion_operator_declaration') {
    const op = n.childForFieldName('operator');
    if (op) return `operator ${text.slice(op.startIndex, op.endIndex)}`;
    const m = /operator\s*([^\s(]+)/.exec(text.slice(n.startIndex, n.endIndex));
    return m ? `operator ${m[1]}` : 'operator';
  }
  return n.type.replace(/_declaration$/, '');
}

const csharp: LanguageRules = {
  attaches: (n) => n.type === 'comment',
  unit(n, parent, b) {
    const range = { start: n.startIndex, end: n.endIndex };
    const type = CSHARP_TYPES[n.type];
    if (type) {
      const name = fieldText(n, 'name', b.text) ?? 'type';
      const body = n.childForFieldName('body');
      const u: Unit = { kind: type, symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
      if (n.type !== 'enum_declaration') u.members = b.members(body, u, b.depth + 1);
      return u;
    }
    if (n.type === 'namespace_declaration' || n.type === 'file_scoped_namespace_declaration') {
      const name = fieldText(n, 'name', b.text) ?? 'namespace';
      const fileScoped = n.type === 'file_scoped_namespace_declaration';
      const body = fileScoped ? n.parent : n.childForFieldName('body');
      if (fileScoped && body) range.end = body.endIndex;
      const u: Unit = { kind: 'namespace', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, fileScoped ? null : body), boundaries: [] };
      u.members = b.members(body, u, b.depth + 1, fileScoped ? n.endIndex : undefined);
      return u;
    }
    if (n.type === 'delegate_declaration') {
      const name = fieldText(n, 'name', b.text) ?? 'delegate';
      return { kind: 'type', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, null), boundaries: [] };
    }
    const member = CSHARP_MEMBERS[n.type];
    if (member && parent) {
      const body = n.childForFieldName('body') ?? n.childForFieldName('accessors');
      return { kind: member, symbol: q(parent, csharpMemberName(n, b.text)), parent: parent.symbol, range, signature: b.signature(n, body), boundaries: [] };
    }
    return undefined;
  },
};

// ---------------------------------------------------------------------------------------------
// C and C++ (one grammar, tree-sitter-cpp). `template<…>` is the declaration's parent node and
// becomes the unit's range; include guards, `#if` blocks and `extern "C" { … }` are transparent
// (their declarations are listed as if at their level); prototypes are module code.

const CPP_TYPES: Record<string, ChunkKind> = {
  class_specifier: 'class',
  struct_specifier: 'struct',
  union_specifier: 'struct',
  enum_specifier: 'enum',
};

const CPP_TRANSPARENT = new Set(['preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'linkage_specification']);

/** `Widget<T>::draw` → `Widget.draw`, `a::b` → `a.b`. */
const cppName = (s: string) => s.replace(/<[^<>]*(?:<[^<>]*>[^<>]*)*>/g, '').replace(/\s+/g, ' ').replace(/^::/, '').split('::').join('.').trim();

/** The function_declarator of a definition, under pointers and references (`int *f(void)`). */
function cppFunctionDeclarator(n: Node | null): Node | null {
  let d = n;
  for (let i = 0; d && i < 8; i++) {
    if (d.type === 'function_declarator') return d;
    d = d.childForFieldName('declarator') ?? d.namedChildren.find((c): c is Node => !!c && c.type.endsWith('declarator')) ?? null;
  }
  return null;
}

/** The declaration a `template<…>` wraps. */
const cppTemplated = (n: Node): Node | undefined => n.namedChildren.find((c): c is Node => !!c && c.type !== 'template_parameter_list' && c.type !== 'comment');

/**
 * `class EXPORT_MACRO Name : public Base { … };` (`TINYXML2_LIB`, Qt's `Q_CORE_EXPORT`, `FOO_API`): the
 * grammar, not knowing the macro, reads a function whose type is `class EXPORT_MACRO`, with the
 * class's name in an ERROR node (or, with no base class, as the declarator) and its body as the
 * function's. The class it is: its type node and name.
 */
function cppMacroClass(n: Node, text: string): { type: Node; name: string } | undefined {
  const type = n.childForFieldName('type');
  if (!type || (type.type !== 'class_specifier' && type.type !== 'struct_specifier') || type.childForFieldName('body')) return undefined;
  const macro = fieldText(type, 'name', text);
  if (!macro || !/^[A-Z][A-Z0-9_]*$/.test(macro) || !n.childForFieldName('body')) return undefined;
  const error = n.namedChildren.find((c): c is Node => !!c && c.type === 'ERROR' && c.startIndex >= type.endIndex);
  // the first name after `class MACRO`: the declarator (a bare name; a function's has parameters) or
  // in the ERROR node, whichever the grammar's recovery made it (the other is the base class)
  const declarator = n.childForFieldName('declarator');
  const names = [declarator?.type === 'identifier' ? declarator : undefined, error?.namedChildren.find((c): c is Node => !!c && (c.type === 'identifier' || c.type === 'type_identifier'))];
  const id = names.filter((c): c is Node => !!c).sort((a, b) => a.startIndex - b.startIndex)[0];
  return id ? { type, name: text.slice(id.startIndex, id.endIndex) } : undefined;
}

/** The class/struct/union/enum with a body that a declaration (`struct S {…} s;`, `typedef struct {…} T;`) defines. */
function cppTypeOf(n: Node): Node | undefined {
  if (CPP_TYPES[n.type]) return n.childForFieldName('body') ? n : undefined;
  if (n.type === 'declaration' || n.type === 'field_declaration' || n.type === 'type_definition') {
    const t = n.childForFieldName('type');
    if (t && CPP_TYPES[t.type] && t.childForFieldName('body')) return t;
  }
  return undefined;
}

const cpp: LanguageRules = {
  attaches: (n) => n.type === 'comment',
  transparent: (n) => CPP_TRANSPARENT.has(n.type) || (n.type === 'declaration_list' && n.parent?.type === 'linkage_specification'),
  unit(n, parent, b) {
    const range = { start: n.startIndex, end: n.endIndex };
    // `struct S { … };`: the `;` right after the type is part of it
    const next = n.nextSibling;
    if (CPP_TYPES[n.type] && next?.type === ';' && next.startIndex === n.endIndex) range.end = next.endIndex;
    if (n.type === 'template_declaration') {
      const inner = cppTemplated(n);
      const u = inner ? cpp.unit(inner, parent, b) : undefined;
      if (u) u.range = { start: n.startIndex, end: Math.max(n.endIndex, u.range.end) };
      return u;
    }
    if (n.type === 'function_definition') {
      const exported = cppMacroClass(n, b.text);
      if (exported) {
        const body = n.childForFieldName('body');
        const u: Unit = { kind: CPP_TYPES[exported.type.type], symbol: q(parent, exported.name), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
        u.members = b.members(body, u, b.depth + 1);
        return u;
      }
      const decl = cppFunctionDeclarator(n.childForFieldName('declarator'));
      const nameNode = decl?.childForFieldName('declarator');
      const name = nameNode ? cppName(b.text.slice(nameNode.startIndex, nameNode.endIndex)) : 'function';
      const dot = name.lastIndexOf('.');
      const inType = !!parent && parent.kind !== 'namespace';
      if (dot > 0) {
        // `void Widget::draw() {…}` outside the class: a method of Widget
        const owner = q(parent, name.slice(0, dot));
        return { kind: 'method', symbol: q(parent, name), parent: owner, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
      }
      return { kind: inType ? 'method' : 'function', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
    }
    if (n.type === 'namespace_definition') {
      const body = n.childForFieldName('body');
      const nameNode = n.childForFieldName('name');
      const name = nameNode ? cppName(b.text.slice(nameNode.startIndex, nameNode.endIndex)) : 'anonymous';
      const u: Unit = { kind: 'namespace', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
      u.members = b.members(body, u, b.depth + 1);
      return u;
    }
    if ((n.type === 'preproc_function_def' || n.type === 'preproc_def') && b.text.slice(n.startIndex, n.endIndex).trimEnd().includes('\n')) {
      // a one-line #define is module code; a macro over several lines is a unit
      const name = fieldText(n, 'name', b.text) ?? 'macro';
      return { kind: 'macro', symbol: name, range: { start: n.startIndex, end: n.endIndex }, signature: firstLine(b.text.slice(n.startIndex, n.endIndex)), boundaries: [] };
    }
    const type = cppTypeOf(n);
    if (type) {
      const body = type.childForFieldName('body');
      let name = fieldText(type, 'name', b.text);
      if (!name && n.type === 'type_definition') name = fieldText(n, 'declarator', b.text); // typedef struct { … } Point;
      const u: Unit = { kind: CPP_TYPES[type.type], symbol: q(parent, cppName(name ?? CPP_TYPES[type.type])), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
      if (type.type !== 'enum_specifier') u.members = b.members(body, u, b.depth + 1);
      return u;
    }
    return undefined;
  },
};

// ---------------------------------------------------------------------------------------------
// PHP (the grammar with HTML: text outside `<?php … ?>` is module code). `namespace X;` holds the
// declarations after it, up to the next namespace statement; attributes `#[…]` are inside the node.

const PHP_TYPES: Record<string, ChunkKind> = {
  class_declaration: 'class',
  interface_declaration: 'interface',
  trait_declaration: 'trait',
  enum_declaration: 'enum',
};

const phpName = (s: string) => s.replace(/^\\/, '').split('\\').join('.');

const php: LanguageRules = {
  attaches: (n) => n.type === 'comment',
  unit(n, parent, b) {
    const range = { start: n.startIndex, end: n.endIndex };
    const type = PHP_TYPES[n.type];
    if (type) {
      const name = fieldText(n, 'name', b.text) ?? 'type';
      const body = n.childForFieldName('body');
      const u: Unit = { kind: type, symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
      u.members = b.members(body, u, b.depth + 1);
      return u;
    }
    if (n.type === 'function_definition' || (n.type === 'method_declaration' && parent)) {
      const name = fieldText(n, 'name', b.text) ?? 'function';
      return { kind: n.type === 'method_declaration' ? 'method' : 'function', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, n.childForFieldName('body')), boundaries: [] };
    }
    if (n.type === 'const_declaration' && parent && parent.kind !== 'namespace') {
      const names = n.descendantsOfType('const_element').map((c) => c?.namedChildren.find((x) => x?.type === 'name')).filter((c): c is Node => !!c);
      const symbol = names.map((c) => b.text.slice(c.startIndex, c.endIndex)).join(', ') || 'const';
      return { kind: 'const', symbol: q(parent, symbol), parent: parent.symbol, range, signature: firstLine(b.text.slice(range.start, range.end)), boundaries: [] };
    }
    if (n.type === 'namespace_definition') {
      const nameNode = n.childForFieldName('name');
      const name = nameNode ? phpName(b.text.slice(nameNode.startIndex, nameNode.endIndex)) : 'namespace';
      const body = n.childForFieldName('body');
      let members: Node | null = body;
      let to: number | undefined;
      if (!body) {
        // `namespace X;`: everything after it up to the next namespace statement (whose comments stay with it)
        members = n.parent;
        for (let s = n.nextNamedSibling; s && s.type !== 'namespace_definition'; s = s.nextNamedSibling) if (!php.attaches(s)) range.end = s.endIndex;
        to = range.end;
      }
      const u: Unit = { kind: 'namespace', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
      u.members = b.members(members, u, b.depth + 1, body ? undefined : n.endIndex, to);
      return u;
    }
    return undefined;
  },
};

// ---------------------------------------------------------------------------------------------
// Ruby. `class << self` is see-through: its methods are the class's (`Invoice.build`), as are
// `def self.build`'s; `attr_*` calls and constants stay member / module code.

const ruby: LanguageRules = {
  attaches: (n) => n.type === 'comment',
  transparent: (n) => n.type === 'singleton_class' || (n.type === 'body_statement' && n.parent?.type === 'singleton_class'),
  unit(n, parent, b) {
    const range = { start: n.startIndex, end: n.endIndex };
    if (n.type === 'class' || n.type === 'module') {
      const nameNode = n.childForFieldName('name');
      const name = nameNode ? b.text.slice(nameNode.startIndex, nameNode.endIndex).replace(/^::/, '').split('::').join('.') : n.type;
      const body = n.childForFieldName('body');
      const u: Unit = { kind: n.type === 'class' ? 'class' : 'namespace', symbol: q(parent, name), parent: parent?.symbol, range, signature: b.signature(n, body), boundaries: [] };
      u.members = b.members(body, u, b.depth + 1);
      return u;
    }
    if (n.type === 'method' || n.type === 'singleton_method') {
      const name = fieldText(n, 'name', b.text) ?? 'method';
      const body = n.childForFieldName('body');
      // an endless method (`def active? = state == :active`) is its whole line
      const sig = b.signature(n, body?.type === 'body_statement' ? body : null);
      return { kind: parent ? 'method' : 'function', symbol: q(parent, name), parent: parent?.symbol, range, signature: sig, boundaries: [] };
    }
    return undefined;
  },
};

/** The rules by name: a language's `rules` in languages.ts names one of these. */
export const RULES: Readonly<Record<string, LanguageRules>> = { python, go, rust, java, csharp, cpp, php, ruby };

// ---------------------------------------------------------------------------------------------

/** Syntax errors worth reporting: the outermost ERROR / MISSING nodes, in order. */
function syntaxErrors(root: Node, limit = 50): Node[] {
  const out: Node[] = [];
  const visit = (n: Node, depth: number) => {
    if (out.length >= limit) return;
    if (n.isError || n.isMissing) {
      out.push(n);
      return;
    }
    if (!n.hasError || depth > MAX_DEPTH * 4) return;
    for (const c of n.children) if (c) visit(c, depth + 1);
  };
  visit(root, 0);
  return out;
}

/**
 * A file by its syntax tree: the language's rules find the units (top level, then members),
 * cut points are sought only in units over budget, and units.ts makes the chunks.
 */
export function chunkTreeSitter(ctx: ChunkContext, options?: ResolvedOptions): ChunkerOutput {
  const rules = rulesFor(ctx.language);
  const tree = parse(ctx);
  try {
    const warnings = syntaxWarnings(ctx, tree.rootNode);
    const finder = new UnitFinder(ctx, rules);
    const { units, nodeAt, moduleBoundaries } = finder.topLevelUnits(tree.rootNode);
    for (const u of units) finder.markCutPoints(u, nodeAt.get(u));
    const chunks = emitUnits(ctx, units, { start: 0, end: ctx.text.length, header: finder.header, moduleBoundaries, overlap: options?.overlap ?? 0, opener: rules.opener });
    return { chunks, warnings };
  } finally {
    tree.delete();
  }
}

function rulesFor(language: string): LanguageRules {
  const name = RULES_OF[language];
  const found = name ? RULES[name] : undefined;
  if (!found) throw new FallbackError(`no tree-sitter rules for ${language}`);
  return found;
}

/** The file's syntax tree (the caller deletes it), or a FallbackError saying why there is none. */
function parse(ctx: ChunkContext): Tree {
  const g = grammar(ctx.language);
  if (!g) throw new FallbackError(grammarProblem(ctx.language));
  const tree = g.parser.parse(ctx.text);
  if (!tree) throw new FallbackError(`the ${ctx.language} parser gave no tree`);
  return tree;
}

/**
 * A warning for the syntax errors tree-sitter recovered from; a FallbackError when most of the
 * file is inside them.
 */
function syntaxWarnings(ctx: ChunkContext, root: Node): string[] {
  const errors = root.hasError ? syntaxErrors(root) : [];
  // (a missing terminator at the end of a Go file is flagged on the root but is no node: ignored)
  if (!errors.length) return [];
  let bad = 0;
  for (const e of errors) bad += e.endIndex - e.startIndex;
  const at = ctx.src.position(errors[0].startIndex).line;
  const what = errors[0].isMissing ? `missing ${errors[0].type}` : 'syntax error';
  // Tree-sitter always recovers; when most of the file is inside ERROR nodes there is no
  // structure left worth trusting, so the text chunker does it, and says why.
  const length = ctx.text.length;
  if (bad > length * 0.5) throw new FallbackError(`syntax error: ${what} at line ${at}; ${Math.round((100 * bad) / length)}% of the file unparsed`);
  return [`recovered ${errors.length}${errors.length >= 50 ? '+' : ''} syntax error(s): ${what} at line ${at}`];
}

/** Units and their cut points in one file's syntax tree, by one language's rules. */
class UnitFinder {
  private readonly text: string;

  constructor(
    private readonly ctx: ChunkContext,
    private readonly rules: LanguageRules,
  ) {
    this.text = ctx.text;
  }

  /** The breadcrumb of a chunk of `symbol` (undefined = module code). */
  readonly header = (symbol: string | undefined): string => commentHeader(this.ctx.language, symbol ? `${this.ctx.path} :: ${symbol}` : this.ctx.path);

  private budgetFor(symbol: string | undefined): number {
    return Math.max(1, this.ctx.maxTokens - this.ctx.headerCost(this.header(symbol)));
  }

  /** Only blanks between the start of the line and `offset`. */
  private lineStart(offset: number): boolean {
    const li = this.ctx.src.lineIndexAt(offset);
    return /^[ \t]*$/.test(this.text.slice(this.ctx.src.lineStarts[li], offset));
  }

  /** Two nodes with nothing but one line break (and indentation) between them. */
  private adjacent(a: Node, bStart: number): boolean {
    return /^[ \t]*(?:\r\n|\r|\n)?[ \t]*$/.test(this.text.slice(a.endIndex, bStart)) || a.endIndex >= bStart;
  }

  /** A node's named children, those of see-through ones (`rules.transparent`) in their place. */
  private listed(n: Node, depth: number): Node[] {
    return n.namedChildren.flatMap((c) => (!c ? [] : depth < MAX_DEPTH && this.rules.transparent?.(c) ? this.listed(c, depth + 1) : [c]));
  }

  /**
   * Children of a list (module, class body, impl body …) as [node, start] pairs, where start
   * includes the comments/attributes directly above the node.
   */
  private withAttached(parent: Node): Array<{ node: Node; start: number }> {
    const out: Array<{ node: Node; start: number }> = [];
    let runStart = -1;
    let prev: Node | null = null;
    for (const c of this.rules.transparent ? this.listed(parent, 0) : parent.namedChildren) {
      if (!c) continue;
      if (runStart >= 0 && prev && !this.adjacent(prev, c.startIndex)) runStart = -1;
      if (this.rules.attaches(c) && this.lineStart(c.startIndex)) {
        if (runStart < 0) runStart = c.startIndex;
        out.push({ node: c, start: c.startIndex });
      } else {
        out.push({ node: c, start: runStart >= 0 ? runStart : c.startIndex });
        runStart = -1;
      }
      prev = c;
    }
    return out;
  }

  /** What the rules get at `depth`: the text, signatures, member lists. */
  private builder(depth: number): Builder {
    const text = this.text;
    return {
      text,
      depth,
      declarations: this.ctx.declarations,
      signature: (n, body) => {
        const s = n.startIndex;
        let e = body ? body.startIndex : n.endIndex;
        // a comment between the declaration and its body (Python) is not part of the signature
        for (const c of n.children) if (c && c.startIndex > s && c.startIndex < e && this.rules.attaches(c)) e = c.startIndex;
        return firstLine(text.slice(s, e).replace(/\s+/g, ' ').trim() || text.slice(s, n.endIndex));
      },
      members: (body, parent, d, from, to) => (body && d < MAX_DEPTH ? this.unitsOf(body, parent, d, from, to) : []),
    };
  }

  /** Units among a node's children, attached comments included in their ranges. */
  private unitsOf(list: Node, parent: Unit | undefined, depth: number, from = 0, to = Infinity): Unit[] {
    const out: Unit[] = [];
    const b = this.builder(depth);
    for (const { node, start } of this.withAttached(list)) {
      if (this.rules.attaches(node) || node.startIndex < from || node.endIndex > to) continue;
      const u = this.rules.unit(node, parent, b);
      if (!u) continue;
      u.range.start = Math.min(u.range.start, start);
      out.push(u);
    }
    return out;
  }

  /**
   * The file's top-level units (their nodes remembered, to find cut points only where a cut is
   * needed) and the cut points of the module code between them.
   */
  topLevelUnits(root: Node): { units: Unit[]; nodeAt: Map<Unit, Node>; moduleBoundaries: number[] } {
    const units: Unit[] = [];
    const nodeAt = new Map<Unit, Node>();
    const moduleBoundaries: number[] = [];
    const b0 = this.builder(0);
    for (const { node, start } of this.withAttached(root)) {
      // inside a unit that runs past its node (a file-scoped C# or PHP namespace holds what follows)
      const last = units[units.length - 1];
      if (last && node.startIndex < last.range.end) continue;
      if (this.lineStart(start)) moduleBoundaries.push(start);
      if (this.rules.attaches(node)) continue;
      const u = this.rules.unit(node, undefined, b0);
      if (!u) {
        // module code over budget (a big `if __name__ == …` block) is cut inside, too
        if (this.ctx.countRange(node.startIndex, node.endIndex) > this.budgetFor(undefined)) this.cutPoints(node, this.budgetFor(undefined), moduleBoundaries);
        continue;
      }
      u.range.start = Math.min(u.range.start, start);
      nodeAt.set(u, node);
      units.push(u);
    }
    return { units, nodeAt, moduleBoundaries };
  }

  /**
   * Natural cut points inside `n` for a piece that must fit `budget`: the starts of its
   * line-leading children (a comment keeps the node right below it), and inside any child
   * still over budget, its own, recursively. Outer boundaries come first, so ctx.pack's
   * packing keeps small statements whole and only opens the big ones.
   */
  private cutPoints(n: Node, budget: number, out: number[], keep: ReadonlySet<number> = new Set(), depth = 0): number[] {
    if (depth > MAX_DEPTH) return out;
    for (const { node, start } of this.withAttached(n)) {
      if (start === node.startIndex && !keep.has(start) && this.lineStart(start)) out.push(start);
      if (node.endIndex - node.startIndex > 40 && node.namedChildCount > 0 && this.ctx.countRange(node.startIndex, node.endIndex) > budget) this.cutPoints(node, budget, out, keep, depth + 1);
    }
    return out;
  }

  /** Boundaries only for units that will be cut (over budget), and their members': their nodes walked again. */
  markCutPoints(u: Unit, node: Node | undefined): void {
    if (this.ctx.cost(this.header(u.symbol), u.range.start, u.range.end) <= this.ctx.maxTokens) return;
    // the comments above, and decorators, stay with the definition, and the declaration line
    // with the first statement of its body (Python bodies start a line)
    if (node) {
      const keep = new Set<number>([node.startIndex]); // doc comments and attributes stay with the item
      const def = node.type === 'decorated_definition' ? node.childForFieldName('definition') : null;
      if (def) keep.add(def.startIndex);
      const body = bodyOf(node);
      if (body) keep.add(body.startIndex);
      u.boundaries = this.cutPoints(node, this.budgetFor(u.symbol), [], keep);
    }
    if (u.members?.length) {
      const body = node ? bodyOf(node) : undefined;
      const members = body ? this.withAttached(body).filter((x) => !this.rules.attaches(x.node)) : [];
      // (a unit may end after its node: a C++ `struct S {…}` takes the `;` after it)
      for (const m of u.members) this.markCutPoints(m, members.find((x) => x.node.startIndex >= m.range.start && x.node.endIndex <= m.range.end)?.node);
    }
  }
}

/** The node holding a container's members (class body, impl/trait/mod declaration list …). */
function bodyOf(n: Node): Node | undefined {
  if (n.type === 'decorated_definition') {
    const d = n.childForFieldName('definition');
    return d ? bodyOf(d) : undefined;
  }
  if (n.type === 'type_declaration') return n;
  if (n.type === 'file_scoped_namespace_declaration' || (n.type === 'namespace_definition' && !n.childForFieldName('body') && n.parent?.type === 'program')) return n.parent ?? undefined;
  if (n.type === 'template_declaration') {
    const inner = cppTemplated(n);
    return inner ? bodyOf(inner) : undefined;
  }
  const cppType = cppTypeOf(n);
  if (cppType) return cppType.childForFieldName('body') ?? undefined;
  if (n.type === 'enum_declaration') return javaMembers(n) ?? undefined;
  return n.childForFieldName('body') ?? undefined;
}
