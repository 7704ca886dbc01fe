/**
 * `JSON.stringify(value)` in pieces: the arrays and objects of the first `depth` levels give a
 * piece per element, deeper values one piece each. Joined, the pieces are the same text as
 * `JSON.stringify(value)` (no indentation, no replacer). A writer that awaits between pieces
 * keeps its event loop turning while a large value is written (the i18n index of a tree with
 * translations into a hundred languages is 400 MB of JSON: one `JSON.stringify` and one UTF-8
 * encoding of it held the MCP server's thread for 10 s).
 */
export function* jsonPieces(value: unknown, depth = 3): Generator<string> {
  if (depth <= 0 || value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i) yield ',';
      const v: unknown = value[i];
      if (skipped(v)) yield 'null';
      else yield* jsonPieces(v, depth - 1);
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  for (const [k, v] of Object.entries(value)) {
    if (skipped(v)) continue;
    yield `${first ? '' : ','}${JSON.stringify(k)}:`;
    first = false;
    yield* jsonPieces(v, depth - 1);
  }
  yield '}';
}
