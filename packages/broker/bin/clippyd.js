#!/usr/bin/env node
// The daemon, bundled into one module (scripts/bundle.mjs): a quicker start than dist/main.js's
// some 250 modules, which it holds.
import '../dist/clippyd.mjs';
