/**
 * Writes package.json's `languageModelTools` from the agent tools' own definitions
 * (src/agent/tools.ts: names, descriptions, input schemas), so the editor's tools and `fathom mcp`
 * never drift apart (test/unit/mcp-lmtools.test.ts checks they are equal).
 * Run: npx tsx scripts/lm-tools.ts
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { descriptions, inputShapes, TOOL_NAMES } from '../src/agent/tools';

const file = path.join(__dirname, '..', 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { contributes: { languageModelTools?: Array<Record<string, unknown>> } };
const before = new Map((pkg.contributes.languageModelTools ?? []).map((t) => [t.name as string, t]));
pkg.contributes.languageModelTools = TOOL_NAMES.map((n) => {
  const name = `fathom_${n}`;
  const schema = z.toJSONSchema(z.object(inputShapes[n]).strict()) as Record<string, unknown>;
  delete schema.$schema;
  const old = before.get(name) ?? {};
  return {
    name,
    displayName: old.displayName ?? `Fathom: ${descriptions[n].title}`,
    toolReferenceName: old.toolReferenceName ?? `fathom${n[0].toUpperCase()}${n.slice(1)}`,
    canBeReferencedInPrompt: old.canBeReferencedInPrompt ?? true,
    icon: old.icon ?? '$(search)',
    userDescription: old.userDescription ?? descriptions[n].title,
    modelDescription: descriptions[n].description,
    inputSchema: schema,
  };
});
fs.writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`package.json: ${pkg.contributes.languageModelTools.length} language-model tools written`);
