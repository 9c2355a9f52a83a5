// Types of eslint.boundaries.js, for the scripts that read its lists (its test).
export declare const ALLOWED: Record<string, string[]>;
export declare const packageBoundaries: object[];
export declare const packageLinks: object[];
