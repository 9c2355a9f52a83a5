/**
 * The broker's limits, watermarks and timeouts that several of its folders read, or that tests
 * override through `BrokerOptions.limits`, each with the reason for its value. A limit that
 * bounds the code of one file is a named constant in that file, with its reason there.
 */

/** Lines of scrollback kept per session screen: enough context on reattach, bounded memory. */
export const SCROLLBACK_LINES = 1000;

/**
 * The window in which the pipeline worker counts a screen preset's output to tell a flood (its
 * detector reads the screen, so its screen model parses as output comes but for a flood): short,
 * since screen presets settle over 200 ms; long enough that a flood piles up and its droppable
 * part is dropped unparsed — parsing everything would cost more CPU than forwarding it.
 */
export const SCREEN_FLUSH_MS = 10;

/**
 * A screen preset's output per window that marks a flood (~1.6 MB/s: far beyond what an agent
 * prints for a person to read, or a TUI redraws): output is then held from the screen model
 * while the flood goes on, so that most of it can be dropped. Low enough that a flood slowed
 * down by a loaded machine is still one (measured at a load of 40 on 2 cores: `cat` delivered
 * 5–6 MB/s, and a 64 KiB threshold let xterm parse all of it).
 */
export const SCREEN_FLOOD_BYTES = 16 * 1024;

/**
 * Longest a flood holds output back from a screen preset's screen model: its detector reads the
 * screen, and still settles in time. Other sessions' screen models parse only when their screen
 * is read (SessionModel).
 */
export const SCREEN_FLOOD_HOLD_MS = 100;

/** Unparsed bytes queued in the screen model above which held output keeps waiting. */
export const SCREEN_POST_HIGH = 256 * 1024;

/**
 * Held bytes above which the droppable part is dropped at once: bounds the memory of output
 * held from the screen model (a flood's, or any output of a session whose screen is read only by
 * a replay). What stays above it cannot be dropped, and is parsed.
 */
export const SCREEN_COMPACT_BYTES = 256 * 1024;

/**
 * Least time between two renderings of the screen fed to a screen preset's detector: TUIs
 * redraw in bursts of many small writes, and rendering the screen for each would cost more than
 * the output itself; 25 ms (agentapi's period) keeps detection well inside its latency target.
 */
export const SCREEN_SNAPSHOT_INTERVAL_MS = 25;

/**
 * Bytes of a session's output handed to the pipeline worker and not yet done with there (held
 * for the screen model or queued in it) above which the PTY is paused. Plain text floods never
 * get here (they are dropped to a few screens); output that cannot be dropped (a TUI redrawing
 * with cursor addressing) is paced at the screen model's speed (xterm parses ~20–40 MB/s, and
 * fails past 50 MB queued) instead of growing memory. Detection is never behind the screen
 * model: it reads each batch as it arrives.
 */
export const PIPELINE_BACKLOG_HIGH = 4 * 1024 * 1024;

/** Backlog below which a PTY paused for the pipeline worker resumes. */
export const PIPELINE_BACKLOG_LOW = 1024 * 1024;

/**
 * Bytes the worker is done with between two reports of its progress to the main thread (and it
 * always reports while the main thread holds the PTY for it): a report per batch would wake the
 * main thread for every echo, while the main thread's view of the backlog stays this close.
 */
export const PIPELINE_PROGRESS_BYTES = 256 * 1024;

/**
 * Longest the PTY is held for a pipeline worker that makes no progress at all: catching up
 * takes some 100 ms, so a worker without any progress this long is stuck (a bug, a dead thread);
 * the session's screen model and detection are given up (and logged) rather than its output. A
 * slow worker that still progresses keeps the hold.
 */
export const PIPELINE_STALL_MS = 10_000;

/**
 * How long the pipeline worker stays after the last session left before it is stopped: a
 * session started soon after (a test run, a user's next command) finds it loaded (starting it
 * costs some 100 ms of module loading, seconds from TypeScript sources on a loaded machine),
 * while an idle daemon does not hold the thread for long.
 */
export const PIPELINE_WORKER_IDLE_MS = 60_000;

/**
 * Least time between two messages to the pipeline worker while output keeps coming: a flood's
 * batches (a PTY read of 4 KiB, gathered for at most OUTPUT_BATCH_MS) then travel several at a
 * time, while output after a pause and requests go at once, and a keystroke after
 * INPUT_WORKER_DELAY_MS. Each message wakes the worker thread (and the pace's timer the main
 * thread), and a wake-up is what output costs most on a loaded machine (measured on the 2-core
 * machine: about 0.1 ms of CPU per wake-up and per thread; at 2 ms a `cat` woke the worker some
 * 70 times per MB). The last output of a flood (the prompt after it) waits at most this long for
 * its turn to be seen: well inside the 20 ms turn latency target.
 */
export const PIPELINE_POST_INTERVAL_MS = 8;

/**
 * How long a keystroke waits before it goes to the pipeline worker, counted from its write to
 * the PTY (the flood's pace, PIPELINE_POST_INTERVAL_MS, applies too): a frame. Its echo comes
 * meanwhile: the input's bookkeeping (turn detection's side) runs once the echo went to the
 * clients, and the keystrokes typed within the wait go to the worker with their echoes in one
 * message, one wake-up of the worker (about 0.1 ms of CPU per wake-up and thread) for them all
 * instead of one per key. Input that causes no output is taken when this wait is over; the turn
 * a keystroke opens starts when it was written (the step carries that time), so only the main
 * thread's mirror of the detector's status is this much later, and a request (an injection's
 * `synced`, a replay) does not wait for it. The terminal that draws the echo runs before the
 * worker wakes; on two busy cores every thread woken at the echo competes with that terminal.
 * Measured with four interleaved runs of 200 keys typed 2 ms after each echo into `cat`, beside
 * two busy loops in another session: 4 → 16 ms took the daemon's CPU per key from 300–381 to
 * 254–316 µs (main thread 129–172 → 115–131 µs) and echo p50 from 0.158–0.215 to 0.145–0.186 ms;
 * p99 moved within the runs' noise both ways. Output with no input before it (a prompt, a
 * turn's end) does not wait for it.
 */
export const INPUT_WORKER_DELAY_MS = 16;

/**
 * Longest wait of a message to the pipeline worker that falls due between a keystroke's write
 * to the PTY and its echo: it goes right after the echo reached the clients instead, or after
 * this. A timer that fell due while the daemon slept runs after the next event (the loop wakes
 * at whole milliseconds), so it often ran right after a keystroke's write, and the echo, which
 * the kernel makes on the daemon's core, waited for the message (traced, 800 keys into `cat`:
 * 8% of keystrokes, their echo some 70 µs later). An echo comes within a millisecond as a rule;
 * input that shows nothing (a password) waits this much longer, once per keystroke.
 */
export const ECHO_HOLD_MS = 2;

/** Size of a new session when `spawn` gives none: the classic terminal default. */
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

/**
 * PTY reads at least this large mean a flood (the kernel's buffer was full): their output may
 * wait a moment to be sent with the next reads. Smaller ones (echo, prompts) go out at once.
 */
export const OUTPUT_BULK_CHUNK_BYTES = 1024;

/** How long flood output waits for more before it goes to clients: unnoticeable on screen. */
export const OUTPUT_BATCH_MS = 1;

/** Most output bytes gathered into one frame: a socket write's worth, far below the frame cap. */
export const OUTPUT_BATCH_MAX_BYTES = 64 * 1024;

/**
 * Unacknowledged bytes above which an interactive client pauses the PTY. VS Code's pty host
 * uses 100,000 in-process; across a socket the ack round trip then throttles a flood (measured:
 * 18 MB/s at 100 KB, 21.5 MB/s at 2 MB), while 1 MB is still only some 20–40 ms of a flood for
 * the terminal to show after Ctrl-C.
 */
export const FLOW_HIGH_WATERMARK = 1_000_000;

/** Unacknowledged bytes below which a paused PTY resumes: a quarter, so it never runs dry. */
export const FLOW_LOW_WATERMARK = 250_000;

/**
 * How long an interactive client may hold the PTY paused before it is demoted to observer
 * handling: long enough for a busy terminal to catch up, short enough that one stopped client
 * does not stall the others noticeably.
 */
export const FLOW_DEMOTE_GRACE_MS = 2_000;

/**
 * Bytes an observer (or demoted interactive client) may have queued and unsent before it is
 * detached as a slow consumer: several screens of a fast producer, and a hard memory bound.
 */
export const OBSERVER_QUEUE_LIMIT = 8 * 1024 * 1024;

/**
 * Bytes any connection may have queued before it is closed outright (e.g. a subscriber that
 * never reads): above the observer limit so slow-consumer detaching happens first.
 */
export const CONNECTION_QUEUE_LIMIT = 32 * 1024 * 1024;

/**
 * How long a new connection may take to complete `hello`: every client sends it the moment it
 * connects (milliseconds), so even a loaded machine is far inside; a connection that never
 * says hello would otherwise hold its socket and state forever.
 */
export const HELLO_TIMEOUT_MS = 10_000;

/**
 * Connections on one Unix socket that have not said hello, at most: honest clients say it
 * within milliseconds of connecting, so far fewer ever wait at once; a runaway loop of
 * connections holds no more descriptors than this (the oldest waiting one is closed first).
 */
export const PENDING_HELLO_LIMIT = 256;

/**
 * Connections to the web view's port that have not shown the token, at most: any local user
 * can open them, so they are bounded well inside the daemon's descriptors (a browser opens at
 * most 6 per host: ten tabs loading at once fit); the oldest waiting one is closed first.
 */
export const WEB_PENDING_LIMIT = 64;

/**
 * How long a connection to the web view's port may go without showing the token: a page
 * loads its three files and opens its WebSocket within milliseconds; as long as hello may take.
 */
export const WEB_PENDING_TIMEOUT_MS = HELLO_TIMEOUT_MS;

/**
 * Least time between two log lines about connections closed over a cap: a flood of thousands
 * a second leaves one line per interval (with the count), not one per connection.
 */
export const PENDING_REPORT_INTERVAL_MS = 10_000;

/**
 * How long one frame may take from its first byte to its last: a 16 MiB frame crosses a Unix
 * socket in tens of milliseconds, so only a stalled or hostile client comes near this, and it
 * must not keep up to 16 MiB of a half-written frame buffered forever.
 */
export const FRAME_TIMEOUT_MS = 30_000;

/**
 * Bytes all connections together may hold in unfinished frames (measured: 20 half-sent 16 MiB
 * frames added 215 MiB): room for four maximum-size frames arriving at once, which real
 * clients never exceed; the connection whose frame would pass it is closed, not the others.
 */
export const PARTIAL_FRAMES_LIMIT = 64 * 1024 * 1024;

/**
 * Requests of one connection handled per turn of the event loop before the others get theirs:
 * a pipelined flood from one client then delays another client's live output by a few hundred
 * microseconds at most (measured before: 100k pipelined requests held it back up to 702 ms),
 * while a batch is still large enough that a single client loses no throughput to yielding.
 */
export const REQUESTS_PER_TURN = 64;

/**
 * Time one connection's requests may take per turn of the event loop before the others get
 * theirs: a request can cost far more than another (a spawn forks a process: 10–100 ms on a
 * loaded machine), and 64 spawns in one turn held every other client's hello past its 5 s
 * wait. A few milliseconds keep another client's request, and live output, waiting that long.
 */
export const INBOX_TURN_BUDGET_MS = 5;

/** Grace between the polite signal (SIGHUP) and SIGKILL when a session is killed. */
export const KILL_GRACE_MS = 3_000;

/** Grace for sessions to exit on daemon shutdown before their groups get SIGKILL. */
export const SHUTDOWN_GRACE_MS = 2_000;

/**
 * How long a connection whose stream failed (a frame too slow, bad bytes) stays open for the
 * answers to the requests read before the failure: a spawn or a relay takes seconds on a loaded
 * machine; a request that waits on an event (wait_turn) is not waited for past this.
 */
export const ANSWERS_BEFORE_CLOSE_MS = 10_000;

/** How long a closing connection may take to flush its last messages before it is destroyed. */
export const CLOSE_FLUSH_MS = 500;

/** Length of a session ID (base32 chars): 30 bits, plenty for one daemon's life, easy to type. */
export const SESSION_ID_LENGTH = 6;

/** Timeout of the connect probe that tells a live broker from a stale socket file. */
export const STALE_PROBE_TIMEOUT_MS = 1_000;

/** Default signal of `kill`: what a terminal sends when its window closes. */
export const DEFAULT_KILL_SIGNAL = 'SIGHUP';

/** Default turn preset stored on a spawned session. */
export const DEFAULT_PRESET = 'generic';

/**
 * Size at which the log file is renamed to `clippyd.log.1` (replacing the previous one) and a
 * new one started: days of info-level lines, and the two files bound the disk the log can take
 * to 20 MiB even when `trace` writes terminal content.
 */
export const LOG_MAX_BYTES = 10 * 1024 * 1024;

/**
 * How often a log file that could not be opened is tried again (on the next line written): the
 * user's fix (a directory made, space freed) is noticed without a restart, and a failing open is
 * not retried on every line.
 */
export const LOG_REOPEN_INTERVAL_MS = 30_000;

/**
 * How long a log line waits for a full stderr pipe (`--foreground` with a slow reader) before it
 * is dropped: a reader that is merely busy catches up, one that stopped cannot stall the daemon.
 */
export const LOG_PIPE_WAIT_MS = 100;

/**
 * Direct attach: longest the daemon waits for a client's terminal to take the restore (and the
 * session's last output) when it gives the terminal back; then it closes it anyway (at the
 * session's exit, only once the terminal took nothing for that long: the client waits for the
 * `exit` push without a bound of its own, and the last output is all the user keeps). As long as
 * the attach client's own wait for a terminal to drain (relay mode), and shorter than its wait
 * for the daemon's answer, so the two never write at once.
 */
export const TERMINAL_GIVE_BACK_MS = 2_000;

/**
 * Direct attach: longest a terminal given back waits for the session's modes as of its last
 * output (a round trip through the pipeline worker, which a loaded machine may hold up); then
 * it gets the blind restore (every mode a session may turn on, off). A part of
 * TERMINAL_GIVE_BACK_MS, so the terminal's own writes keep most of that bound.
 */
export const TERMINAL_MODES_WAIT_MS = 500;
