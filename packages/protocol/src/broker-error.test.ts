import { describe, expect, it } from 'vitest';
import { BrokerError } from './errors.js';

/** What another copy of this module (the CLI's bundle holds one) makes of a BrokerError. */
function fromAnotherCopy(code: string): Error {
  const mark: unique symbol = Symbol.for('clippy.BrokerError') as never;
  class BrokerError extends Error {
    readonly [mark] = true;
    constructor(readonly code: string) {
      super(code);
      this.name = 'BrokerError';
    }
  }
  return new BrokerError(code);
}

describe('BrokerError', () => {
  it("is recognised by instanceof when another copy of protocol made it (clippy acp's client is the bundle's)", () => {
    const other = fromAnotherCopy('no_session');
    expect(other).toBeInstanceOf(BrokerError);
    expect(new BrokerError('no_session', 'gone')).toBeInstanceOf(BrokerError);
  });

  it('is not claimed for other errors, nor for a subclass another copy did not make', () => {
    expect(new Error('no_session')).not.toBeInstanceOf(BrokerError);
    expect(Object.assign(new Error('x'), { name: 'BrokerError', code: 'x' })).not.toBeInstanceOf(
      BrokerError,
    );
    class Sub extends BrokerError {}
    expect(new Sub('version_mismatch')).toBeInstanceOf(Sub);
    expect(new BrokerError('version_mismatch')).not.toBeInstanceOf(Sub);
    expect(fromAnotherCopy('version_mismatch')).not.toBeInstanceOf(Sub);
  });
});
