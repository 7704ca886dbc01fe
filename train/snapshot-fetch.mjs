#!/usr/bin/env node
/**
 * Downloads pinned Debian packages that the mirror no longer serves from snapshot.debian.org,
 * Debian's archive of every version it ever published. The mirror keeps only the current
 * version of a package, so a security update makes a pinned version of train/debian-packages.txt
 * vanish from it; without this, `npm run train:model` would train on fewer packages than the
 * shipped model was and make another model.
 *
 *   node train/snapshot-fetch.mjs DEST_DIR name=version …
 *
 * For each package: the machine-readable interface's list of the files of that binary version
 * (`/mr/binary/<name>/<version>/binfiles`), the file for architecture `all` (else this machine's),
 * fetched by its hash (`/file/<sha1>`) and checked against it, then written as apt-get download
 * names it (`<name>_<version, ':' as %3a>_<arch>.deb`). Prints, on stdout, each spec it could not
 * fetch (one per line), and on stderr why. Exit status 0 either way: the caller lists what is missing.
 * FATHOM_SNAPSHOT_URL: another server of the same interface (a mirror of it; the tests' local one).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const BASE = (process.env.FATHOM_SNAPSHOT_URL || 'https://snapshot.debian.org').replace(/\/+$/, '');
const TIMEOUT_MS = Number(process.env.FATHOM_SNAPSHOT_TIMEOUT_MS || 120_000);

function machineArch() {
  try {
    return execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim() || 'amd64';
  } catch {
    return 'amd64';
  }
}

async function get(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res;
}

/** Fetches one `name=version` into `dest`; throws with the reason. */
export async function fetchOne(spec, dest, arch = machineArch()) {
  const eq = spec.indexOf('=');
  if (eq <= 0 || eq === spec.length - 1) throw new Error(`not name=version: ${spec}`);
  const name = spec.slice(0, eq);
  const version = spec.slice(eq + 1);
  const list = await (await get(`${BASE}/mr/binary/${encodeURIComponent(name)}/${encodeURIComponent(version)}/binfiles`)).json();
  const files = Array.isArray(list?.result) ? list.result : [];
  const pick = files.find((f) => f.architecture === 'all') ?? files.find((f) => f.architecture === arch);
  if (!pick || typeof pick.hash !== 'string') throw new Error(`snapshot has no file of ${spec} for architecture all or ${arch}`);
  const body = Buffer.from(await (await get(`${BASE}/file/${pick.hash}`)).arrayBuffer());
  const sha1 = createHash('sha1').update(body).digest('hex');
  if (sha1 !== pick.hash.toLowerCase()) throw new Error(`${spec}: the file's SHA-1 ${sha1} is not the ${pick.hash} snapshot lists: not written`);
  const file = path.join(dest, `${name}_${version.replace(/:/g, '%3a')}_${pick.architecture}.deb`);
  fs.writeFileSync(`${file}.part`, body);
  fs.renameSync(`${file}.part`, file);
  return file;
}

async function main() {
  const [dest, ...specs] = process.argv.slice(2);
  if (!dest) {
    process.stderr.write('usage: node train/snapshot-fetch.mjs DEST_DIR name=version …\n');
    process.exit(2);
  }
  fs.mkdirSync(dest, { recursive: true });
  const arch = machineArch();
  for (const spec of specs) {
    try {
      const file = await fetchOne(spec, dest, arch);
      process.stderr.write(`snapshot: ${spec} → ${path.basename(file)}\n`);
    } catch (e) {
      const cause = e?.cause?.code ?? e?.cause?.message;
      process.stderr.write(`snapshot: ${spec} not fetched: ${e?.message ?? e}${cause ? ` (${cause})` : ''}\n`);
      process.stdout.write(`${spec}\n`);
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) await main();
