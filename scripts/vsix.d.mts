/** Types of scripts/vsix.mjs (a plain ES module, imported by the e2e tests). */
export function listZip(file: string): Array<{ name: string; size: number; compressed: number }>;
