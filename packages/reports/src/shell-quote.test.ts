import { execFileSync } from 'node:child_process';
import { describe, it, expect } from 'vitest';
import { runReportSchemaUrl } from './schema-files.js';
import { shellJoin } from './shell-quote.js';
import { estimateTokens } from './token-estimate.js';
import fs from 'node:fs';

describe('shellJoin', () => {
  const argv = ['claude', '--model', 'opus 4', "it's", '', '$HOME', 'a"b', '*.ts', 'ok/path-1.2'];

  it('quotes only what needs quoting', () => {
    expect(shellJoin(argv)).toBe(
      `claude --model 'opus 4' 'it'\\''s' '' '$HOME' 'a"b' '*.ts' ok/path-1.2`,
    );
  });

  it('is split back into the same argv by a real shell', () => {
    const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${shellJoin(argv)}`], {
      encoding: 'utf8',
    });
    expect(out.split('\0').slice(0, -1)).toEqual(argv);
  });
});

describe('estimateTokens', () => {
  it('is characters (code points) / 4, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('😀😀😀😀')).toBe(1);
  });
});

describe('schema files', () => {
  it('runReportSchemaUrl points at the shipped run report schema', () => {
    expect(JSON.parse(fs.readFileSync(runReportSchemaUrl, 'utf8'))).toMatchObject({
      title: 'RunReport',
    });
  });
});
