import { describe, expect, it } from 'vitest';
import { optionKind } from './permission.js';

describe('optionKind', () => {
  it("tells allow from reject, once from always, in the agents' own words", () => {
    const cases: [string, string][] = [
      ['Yes', 'allow_once'],
      ['Yes, proceed (y)', 'allow_once'],
      ['Allow once', 'allow_once'],
      ['Yes, allow once', 'allow_once'],
      ['Yes, and always allow access to tmp/ from this project', 'allow_always'],
      ["Yes, and don't ask again for commands that start with `rm -rf build` (p)", 'allow_always'],
      ['Yes, allow all edits during this session (shift+tab)', 'allow_always'],
      ['Allow for this session', 'allow_always'],
      ['Yes, and approve `sed` for the rest of the running session', 'allow_always'],
      ["Don't ask again", 'allow_always'],
      ['Trust folder (proj-gem)', 'allow_always'],
      ['No', 'reject_once'],
      ['No, and tell Claude what to do differently (esc)', 'reject_once'],
      ['No, suggest changes (esc)', 'reject_once'],
      ['Cancel (N) Do not apply the changes', 'reject_once'],
      ['No, exit', 'reject_once'],
      ["Don't trust", 'reject_always'],
    ];
    expect(cases.map(([label]) => [label, optionKind(label)])).toEqual(cases);
  });
});
