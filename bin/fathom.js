#!/usr/bin/env node
// The CLI, from the bundle (`npm run build` makes dist/cli.js).
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('fathom: dist/cli.js is missing; run `npm run build` first.\n');
  process.exit(1);
}
require(cli).run(process.argv.slice(2));
