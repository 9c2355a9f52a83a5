#!/usr/bin/env node
// CommonJS (bin/package.json says so): the bundled entry starts sooner than an ES module.
// Run from V8's compile cache where it can be (compile-cache.cjs).
require('./compile-cache.cjs').run(require.resolve('../dist/clippy.cjs'));
