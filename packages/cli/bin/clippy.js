#!/usr/bin/env node
// CommonJS (bin/package.json says so): the bundled entry starts sooner than an ES module.
// Node 22+ keeps V8’s compiled code of it between runs (some 10 ms of a `clippy ls`; Node 20
// lacks this, and its vm loses the bundle’s import() when it runs code from a cache).
require('node:module').enableCompileCache?.();
require('../dist/clippy.cjs');
