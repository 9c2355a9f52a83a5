/** Version of the message set spoken on the socket; `hello` must carry exactly this. */
export const PROTOCOL_VERSION = 2;

/**
 * clippyd's exit code when a settings file is broken (sysexits' EX_CONFIG): the daemon does
 * not start on settings the user did not write; restarting it cannot help.
 */
export const DAEMON_EXIT_INVALID_CONFIG = 78;

/**
 * Node flags for every start of clippyd (the client's auto-start, `clippy daemon start
 * --foreground`, the service files, the test kit). The daemon keeps a small heap (some 15 MB)
 * but allocates fast while output floods, and V8 gives a small heap a small old generation to
 * start with: traced in a flood, it began a full collection every 10–15 MB of output, on the
 * main thread and in the pipeline worker alike, most of them started by its own marking task
 * while the old generation was far below its limit (11 of 34 MB), its young generation grown
 * to 16 MB. With 64 MB from the start (`--initial-old-space-size`) those collections stopped
 * and the young ones do the work (32 MB did not; docs/architecture.md says what it saved).
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=64'];

/** Largest MessagePack payload in one frame (the contract's 16 MiB cap). */
export const MAX_PAYLOAD_SIZE = 16 * 1024 * 1024;

/** Bytes of the big-endian length prefix in front of every frame. */
export const FRAME_HEADER_SIZE = 4;

/** The `id` every handshake and every unsolicited push carries. */
export const PUSH_ID = 0;

/** Largest request id: ids are u32 on the wire. */
export const MAX_REQUEST_ID = 0xffff_ffff;

/**
 * Output bytes an interactive client consumes between two `ack` notifications. VS Code acks
 * every 5,000 in-process; across a socket each ack wakes the daemon (measured with detection
 * off: the client's CPU per 64 MB fell from 0.79–0.87 s at 5,000 to 0.44–0.52 s at 64 KiB).
 * Far enough below the broker's 1 MB high watermark that the PTY never runs dry.
 */
export const ACK_INTERVAL_BYTES = 64 * 1024;

/** Every protocol version this project has spoken, newest last (rendered in docs/protocol.md). */
export const PROTOCOL_HISTORY: readonly { version: number; changes: string }[] = [
  {
    version: 1,
    changes:
      "clippy's v0/v1 message set: `hello`/`hello_ack`, `register`, `deregister`, `turn_completed`, " +
      '`capture`, `capture_by_id`, `paste`, `deliver`, `get_turn`, `list_turns`, `list_sessions`, ' +
      'the `inject` push and the generic `response`.',
  },
  {
    version: 2,
    changes:
      'The broker owns PTY sessions: `spawn`, `kill`, `remove`, `attach`, `detach`, `input`, `resize`, ' +
      '`ack` (flow control), `send`, `subscribe`/`unsubscribe`, `daemon_status`, `shutdown`, `relay`, ' +
      '`wait_turn`, `set_state`, `put_buffer`; pushes `output`, `exit`, `detached`, `daemon_shutdown` and the events ' +
      '`session_created`, `session_ready`, `state_changed`, `turn_completed`, `session_exited`, ' +
      '`session_removed`. Notifications: a client message with `id` 0 after the handshake gets no response. ' +
      'Error responses carry a human-readable `message` beside the stable `error` code.',
  },
];

/**
 * Below this width a terminal is too narrow to read: prompts wrap and a dialog's markers break,
 * so the daemon never reports `blocked` from such a screen (`busy` instead) and `clippy ls`
 * says the width. 20 columns hold a shell prompt and a few words of answer.
 */
export const MIN_READABLE_COLS = 20;
