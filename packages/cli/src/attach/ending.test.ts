import { describe, expect, it } from 'vitest';
import {
  brokerDetached,
  connectionLost,
  sessionExited,
  signalled,
  terminalGone,
  userDetached,
} from './ending.js';

describe('how an attach ends', () => {
  it('passes the session’s exit status through and leaves its last screen as it is', () => {
    expect(sessionExited(3, null)).toMatchObject({ code: 3, sessionEnded: true, flush: true });
    expect(sessionExited(null, 'SIGKILL').code).toBe(137);
    expect(sessionExited(null, null).code).toBe(1);
    expect(sessionExited(0, null).message).toBeUndefined();
  });

  it('exits 0 on the detach key, with the notice on stdout below the session’s screen', () => {
    expect(userDetached('demo')).toEqual({
      code: 0,
      message: '[detached from demo]',
      flush: true,
      isError: false,
      sessionEnded: false,
      daemonRestored: false,
    });
  });

  it('exits 69 when the daemon shuts down, 1 when the broker detaches for another reason', () => {
    expect(brokerDetached('demo', 'daemon_shutdown', 'daemon stopping')).toMatchObject({
      code: 69,
      message: '[detached from demo: daemon stopping]',
      isError: true,
      sessionEnded: false,
    });
    expect(brokerDetached('demo', 'slow_consumer', 'client too slow')).toMatchObject({
      code: 1,
      message: '[detached from demo: client too slow]',
      isError: true,
    });
  });

  it('direct attach: the detach key seen by the daemon ends as the user’s detach, the terminal given back', () => {
    expect(brokerDetached('demo', 'detach_key', 'the detach key was typed')).toEqual({
      ...userDetached('demo'),
      daemonRestored: true,
    });
    expect(brokerDetached('demo', 'terminal_lost', 'EIO')).toMatchObject({
      code: 1,
      daemonRestored: true,
    });
    expect(sessionExited(0, null).daemonRestored).toBe(true);
  });

  it('exits 69 at once, naming the problem on stderr, when the connection is lost', () => {
    expect(connectionLost('the connection to the clippy daemon was lost')).toEqual({
      code: 69,
      message: 'clippy: the connection to the clippy daemon was lost',
      flush: false,
      isError: true,
      sessionEnded: false,
      daemonRestored: false,
    });
  });

  it('exits 128+signal on a signal, and does not wait for a terminal that hung up', () => {
    expect(signalled('SIGTERM')).toMatchObject({ code: 143, flush: true, sessionEnded: false });
    expect(signalled('SIGINT')).toMatchObject({ code: 130, flush: true });
    expect(signalled('SIGHUP')).toMatchObject({ code: 129, flush: false });
    expect(signalled('SIGHUP').message).toBeUndefined();
  });

  it('exits 1 without waiting when the terminal is gone', () => {
    expect(terminalGone()).toMatchObject({ code: 1, flush: false });
  });
});
