/**
 * The agent's file ranking and what files import: a task about a part that is plugged in
 * somewhere ("Disable Consul service discovery") brings in the registry that imports it.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeQuery } from '../../src/agent/agent-query';
import { rankFiles } from '../../src/agent/file-rank';
import type { AgentFolder } from '../../src/agent/folder';
import { importersOf, importPaths, importSpecs } from '../../src/agent/imports';
import type { Chunk } from '../../src/chunkers/types';
import type { SearchOptions } from '../../src/index/engine';
import type { ReadResult } from '../../src/workspace/source';
import { runTool } from '../../src/agent/tools';
import { LocalFolder } from '../../src/mcp/folder';

describe('agent: what a file imports', () => {
  it('reads the import statements of each language, and resolves relative ones from the file', () => {
    const go = 'package install\n\nimport (\n\t"fmt"\n\t_ "example.com/app/discovery/consul" // register consul\n\tk8s "example.com/app/discovery/kubernetes"\n)\n\nimport "os"\n\nfunc x() { s := []string{\n\t"not/an/import",\n} }\n';
    assert.deepEqual(importSpecs('discovery/install/install.go', go), ['fmt', 'example.com/app/discovery/consul', 'example.com/app/discovery/kubernetes', 'os']);
    const py = 'import os, sys as system\nfrom collections import abc\nfrom . import views, models as m\nfrom ..utils.text import slugify\nfrom .consul import (Client,\n    Watch)\n';
    assert.deepEqual(importPaths('app/discovery/install.py', py), ['collections', 'app/discovery/views', 'app/discovery/models', 'app/utils/text', 'app/discovery/consul', 'os', 'sys']);
    const js = "import { a } from './zoom';\nimport b from '../layers/index.js';\nconst c = require('lodash/fp');\nconst d = await import('@/components/KPanel.vue');\nexport * from './e';\n";
    assert.deepEqual(importPaths('src/map/index.js', js), ['src/map/zoom', 'src/layers/index', 'lodash/fp', '@/components/KPanel', 'src/map/e']);
    assert.deepEqual(importPaths('src/lib.rs', 'use crate::backend::qingstor::{Fs, Options};\nuse std::io;\nextern crate serde;\n'), ['crate/backend/qingstor', 'std/io', 'serde']);
    assert.deepEqual(importPaths('src/X.java', 'package a;\nimport org.app.consul.Client;\nimport static org.app.util.Strings.join;\n'), ['org/app/consul/Client', 'org/app/util/Strings/join']);
    assert.deepEqual(importSpecs('README.md', 'import x from "y"'), [], 'a file of no known language imports nothing');
  });

  it('importersOf reads a file once, and again only when its indexed content changed', () => {
    const texts: Record<string, string> = { 'cmd/all.go': 'package all\n\nimport _ "example.com/app/plugins/ftp"\n', 'cmd/x.go': 'package x\n\nimport "fmt"\n', 'plugins/ftp/ftp.go': 'package ftp\n' };
    const hashes: Record<string, string> = { 'cmd/all.go': 'a1', 'cmd/x.go': 'x1', 'plugins/ftp/ftp.go': 'f1' };
    const reads: string[] = [];
    const ask = () => importersOf('plugins/ftp', Object.keys(texts), (p) => hashes[p], (p) => (reads.push(p), texts[p]));
    assert.deepEqual(ask(), ['cmd/all.go']);
    assert.deepEqual(reads.sort(), ['cmd/all.go', 'cmd/x.go'], 'the module\'s own files are not read');
    reads.length = 0;
    assert.deepEqual(ask(), ['cmd/all.go']);
    assert.deepEqual(reads, [], 'nothing read again');
    texts['cmd/x.go'] = 'package x\n\nimport "example.com/app/plugins/ftp"\n';
    hashes['cmd/x.go'] = 'x2';
    assert.deepEqual(ask(), ['cmd/all.go', 'cmd/x.go']);
    assert.deepEqual(reads, ['cmd/x.go'], 'only the changed file is read again');
  });
});

describe('agent: the registry of the module a task names', () => {
  let dir: string;
  let folder: LocalFolder;
  const mod = 'example.com/app';
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-imports-'));
    const sd = (name: string, extra: string) =>
      `package ${name}\n\n// SDConfig is the ${name} service discovery configuration.\ntype SDConfig struct {\n\tServer string\n\tServices []string\n}\n\n// Discovery finds ${name} services.\ntype Discovery struct{ cfg *SDConfig }\n\n// Refresh lists the ${name} service discovery targets.\nfunc (d *Discovery) Refresh() ([]string, error) {\n\treturn d.cfg.Services, nil // ${extra}\n}\n`;
    write('discovery/consul/consul.go', sd('consul', 'consul catalog services of the consul agent'));
    write('discovery/consul/consul_test.go', `package consul\n\nimport "testing"\n\n// TestConsulDiscovery checks consul service discovery against a fake consul server.\nfunc TestConsulDiscovery(t *testing.T) {\n\td := &Discovery{cfg: &SDConfig{Server: "consul:8500"}}\n\t_, _ = d.Refresh()\n}\n`);
    for (const other of ['nomad', 'dns', 'file', 'http', 'marathon', 'eureka']) write(`discovery/${other}/${other}.go`, sd(other, `${other} service discovery, like consul service discovery`));
    // the registry: every mechanism is imported for its side effect; its words are import paths only
    write('discovery/install/install.go', `// Package install has the side effect of registering all builtin mechanisms.\npackage install\n\nimport (\n${['consul', 'nomad', 'dns', 'file', 'http', 'marathon', 'eureka'].map((m) => `\t_ "${mod}/discovery/${m}" // register ${m}`).join('\n')}\n)\n`);
    // a package that many files import: no registry of anything
    write('util/strutil/strutil.go', 'package strutil\n\n// Quote quotes a consul service name.\nfunc Quote(s string) string { return "\\"" + s + "\\"" }\n');
    for (let i = 0; i < 10; i++) write(`web/h${i}.go`, `package web\n\nimport "${mod}/util/strutil"\n\n// Handler${i} serves page ${i}.\nfunc Handler${i}() string { return strutil.Quote("p${i}") }\n`);
    folder = LocalFolder.open(dir, { watch: false, log: () => undefined });
    folder.start();
    await folder.indexed;
  });
  after(async () => {
    await folder.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const firstFiles = async (query: string) => {
    const r = await runTool('search', { query }, { folders: [folder] });
    return [...new Set((r.structured.hits as Array<{ path: string }>).map((h) => h.path))].slice(0, 5);
  };

  it('"Disable Consul service discovery": the module\'s files first, and the registry that imports it among the first 5', async () => {
    const files = await firstFiles('Disable Consul service discovery');
    assert.equal(path.posix.dirname(files[0]), 'discovery/consul', files.join(', '));
    assert.ok(files.includes('discovery/install/install.go'), files.join(', '));
  });
});

describe('agent: importers are a registry only when few', () => {
  /** A folder whose searches answer `ranking` (files of one chunk each) and whose files read as `texts`. */
  const fake = (ranking: string[], texts: Record<string, string>): AgentFolder => {
    const chunks = new Map(Object.keys(texts).map((p, i) => [p, { id: p, path: p, language: 'go', kind: 'function', header: `// ${p}`, text: texts[p], start: { offset: 0, line: 1, column: 0 }, end: { offset: texts[p].length, line: 3, column: 0 }, tokens: 10, complete: true, docId: i } as unknown as Chunk]));
    return {
      root: '/fake',
      search: async (_q: string, o: SearchOptions) => (o.filters?.pathGlob ? [] : ranking.slice(0, o.k).map((p, i) => ({ chunk: chunks.get(p)!, docId: i, score: 1 / (i + 1), why: { keyword: i + 1, fused: 1 / (i + 1) } }))),
      similar: async () => [],
      chunksOf: (p: string) => (chunks.has(p) ? [chunks.get(p)!] : undefined),
      paths: () => Object.keys(texts),
      skipOf: () => undefined,
      fileHash: (p: string) => (p in texts ? `h-${texts[p].length}` : undefined),
      readFile: (p: string) => ({ ok: true, decoded: { text: texts[p], encoding: 'utf-8', bom: false } }) as unknown as ReadResult,
      i18n: async () => ({ candidates: [], problems: [] }),
      state: () => ({ root: '/fake', files: 0, skipped: 0, chunks: 0, vectors: 0, pendingVectors: 0, store: 'none', watching: 'no' }),
    };
  };
  const importer = (mod: string) => `package x\n\nimport "example.com/app/${mod}"\n\nfunc F() {}\n`;
  const ranked = ['plugins/qingstor/qingstor.go', 'plugins/qingstor/upload.go', 'plugins/s3/s3.go', 'plugins/sftp/sftp.go', 'plugins/ftp/ftp.go', 'plugins/box/box.go'];
  const files = (n: number) => Object.fromEntries([...ranked.map((p) => [p, 'package p\n']), ...Array.from({ length: n }, (_, i) => [`cmd/reg${i}/reg.go`, importer('plugins/qingstor')])]);

  it('a module imported by a few files: they are brought in, first after the module\'s own', async () => {
    const out = await rankFiles(fake(ranked, files(1)), analyzeQuery('Disable qingstor backend for now'), { mode: 'keyword', filters: {} });
    assert.deepEqual(out.slice(0, 3).map((f) => f.path), ['plugins/qingstor/qingstor.go', 'plugins/qingstor/upload.go', 'cmd/reg0/reg.go']);
  });

  it('the module is read from the first files, not only the first (a page about it may rank above its code)', async () => {
    const texts = { 'notes/disable-backend-for-now.go': 'package docs\n', ...files(1) };
    const out = await rankFiles(fake(['notes/disable-backend-for-now.go', ...ranked], texts), analyzeQuery('Disable qingstor backend for now'), { mode: 'keyword', filters: {} });
    assert.ok(out.slice(0, 5).some((f) => f.path === 'cmd/reg0/reg.go'), out.map((f) => f.path).join(', '));
  });

  it('imported by many, a library: none is brought in; a task that names no folder of its first file: none either', async () => {
    const many = await rankFiles(fake(ranked, files(9)), analyzeQuery('Disable qingstor backend for now'), { mode: 'keyword', filters: {} });
    assert.ok(!many.some((f) => f.path.startsWith('cmd/')), many.map((f) => f.path).join(', '));
    const unnamed = await rankFiles(fake(ranked, files(1)), analyzeQuery('Disable the upload backend for now'), { mode: 'keyword', filters: {} });
    assert.ok(!unnamed.some((f) => f.path.startsWith('cmd/')), unnamed.map((f) => f.path).join(', '));
  });
});
