#!/usr/bin/env node
// CommonJS (bin/package.json says so): the bundled entry starts sooner than an ES module.
require('../dist/clippy.cjs');
