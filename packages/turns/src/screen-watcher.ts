// The screen watcher: an agent's turn read from its rendered screen (a screen preset) — the
// submit taken, busy and blocked screens, and the turn over once the idle screen has settled.
import { classifyLines, type Classification } from './classify.js';
import { NO_REACTION_MS, RECORDED_SETTLE_MS, SCREEN_SETTLE_MS } from './constants.js';
import {
  answerEnd,
  echoEnd,
  echoSightings,
  extractAnswer,
  inputRows,
  type EchoSightings,
} from './extract.js';
import { inputHolds } from './input-box.js';
import { readMenu } from './menu.js';
import { tailDrawn } from './answer-drawn.js';
import { openTurnAt, storeOutput, type OpenTurn } from './open-turn.js';
import type { ChunkScan } from './output-scan.js';
import type { CompiledPreset } from './presets.js';
import { firstMatch, screenLines } from './screen-lines.js';
import type { DetectorEvent, ScreenSnapshot, TurnDetectorOptions } from './turn-watcher.js';
import { WatcherBase, type Submit } from './watcher-base.js';

/** A screen preset's turn in progress. */
interface ScreenTurn extends OpenTurn {
  /** The viewport changed after the submit. */
  screenChanged: boolean;
  /** The number of this submit (see `submits`). */
  submitSeq: number;
  /** The agent took the submit (the text left its input box; it works or asks). */
  accepted: boolean;
  /** A screen since the text was input showed it in the input box. */
  seenHeld: boolean;
  /** The agent showed it worked on the submit (a busy screen or report). */
  worked: boolean;
  /** The viewport's first buffer line at submit (the answer is below it). */
  viewportTopAtSubmit: number | undefined;
  /**
   * The echoes of the submitted text already on screen at the submit: an earlier message's
   * (the same question asked again), never this one's.
   */
  echoesAtSubmit: EchoSightings;
  /** The agent's own record says the turn ended (see recordedEnd): a shorter settle. */
  recorded: boolean;
  /** The end of the answer that record gave (answerTail), if any: the screen shows it drawn. */
  recordedTail: string | null;
  /** Esc presses while it was busy (the preset's `interruptKeys` may want more than one). */
  escapes: number;
  /** An idle screen showed nothing of the answer yet (see Preset.emptyAnswerMs). */
  emptyShown: boolean;
  /** The answer as a busy screen showed it last, and how many different ones (answerRedrawMs). */
  busyAnswer: string;
  busyAnswers: number;
  /** The first idle, settled screen's answer and when it was read (see Preset.answerRedrawMs). */
  doneAnswer: string | null;
  doneAt: number;
  /** How long after `doneAt` the redraw is waited for (answerRedrawMs, or UNDRAWN_END_MS). */
  redrawWaitMs: number;
}

/**
 * How long after Enter answered a dialog the same dialog on the screen is taken for the agent's
 * last redraw of it rather than the question asked again: TUIs close a dialog within a frame or
 * two; a second is room for a loaded machine. Still there after that, the Enter did not answer it.
 * A part of it (see `partOf`) is given as long after the screen last changed: a redraw stopped
 * half-way for that long is what the agent shows.
 */
const ANSWERED_DIALOG_MS = 1000;

/**
 * Longest an idle screen that has not drawn the end of the answer the agent recorded is waited
 * for (presets with answerRedrawMs; any preset while none of it shows), or one that shows a line
 * only a half-written answer has (answerUnfinished): OpenCode showed its turn done with the
 * answer half-written and drew the rest more than 3 s later in CI's full suite on 2 cores, with
 * its record, and without it (a list's "1." and "2." still bare when the 3 s wait ended).
 */
const UNDRAWN_END_MS = 10_000;

/** A dialog's question and its choices' labels, whatever its cursor's place (null: none shows). */
interface Dialog {
  question: string;
  labels: string[];
}

function dialogOf(viewport: readonly string[]): Dialog | null {
  const menu = readMenu(viewport);
  return menu && { question: menu.question, labels: menu.options.map((o) => o.label) };
}

/** The same question asked, with the same choices. */
function sameDialog(a: Dialog | null, b: Dialog | null): boolean {
  if (a === null || b === null) return a === b;
  return a.question === b.question && a.labels.join('\n') === b.labels.join('\n');
}

/**
 * A screen showing part of the answered dialog, read half-way while the agent erases or redraws
 * it: Codex rewrites its whole screen line by line, so a read between two writes finds some of
 * its choices and none other, another line taken for its question, or only the footer that
 * says it asks (no choices). Never a new question: that one would have been asked again.
 */
function partOf(now: Dialog | null, answered: Dialog | null): boolean {
  if (answered === null || sameDialog(now, answered)) return false;
  return now === null || now.labels.every((l) => answered.labels.includes(l));
}

export class ScreenWatcher extends WatcherBase<ScreenTurn> {
  readonly needsScreen = true;
  // The latest screen and how long it has been unchanged.
  private screenKey: string | null = null;
  private screenSeq = -1;
  private lastChangeAt = Number.NEGATIVE_INFINITY;
  private lastLines: string[] = [];
  private lastViewport: string[] = [];
  /** The last look for a record's answer's end on the screen (see tailOnScreen). */
  private tailSeen: { key: string | null; tail: string; shown: boolean } | null = null;
  /** The latest screen shows the preset's `interruptArmed` (see that getter). */
  private armed = false;
  private lastViewportTop: number | undefined;
  private lastClass: (Classification & { inputIndex: number }) | null = null;
  /**
   * The dialog Enter answered (its question and choices) and when. The screen may show it a
   * moment longer — the agent draws the cursor's last move before it closes the dialog — which
   * is not the question asked again.
   */
  private answered: { dialog: Dialog | null; at: number; working?: boolean } | null = null;
  /** The latest time the screen was evaluated (a deadline up to it is spent). */
  private evaluatedAt = Number.NEGATIVE_INFINITY;
  /** The agent's own reports of its state (OSC sequences) are read: its preset has signals. */
  readonly scanNeeds: { osc: boolean };
  /** The latest report. */
  private signal: 'idle' | 'busy' | 'blocked' | null = null;
  /** Submits (Enter with the agent ready) so far, and the latest one it took. */
  private submitCount = 0;
  private takenCount = 0;
  /** The text of the submit the agent did not take (dropUntaken), until the next submit. */
  private untaken: string | null = null;
  /** Loading screens (its box gone, keys dropped: a `loading` marker) that began so far. */
  private loadCount = 0;
  /** The agent, ready, showed a loading screen: busy until its input box has settled again. */
  private reloading = false;

  /** How many Esc presses stop the agent (its preset's `interruptKeys`, default one). */
  private readonly escapesToInterrupt: number;

  constructor(c: CompiledPreset, opts: Omit<TurnDetectorOptions, 'preset'>) {
    super(c, opts);
    this.escapesToInterrupt = Math.max(
      1,
      (c.preset.interruptKeys ?? ['Esc']).filter((k) => /^esc(?:ape)?$/iu.test(k)).length,
    );
    const signals = c.busySignal.length + c.idleSignal.length + c.blockedSignal.length;
    this.scanNeeds = { osc: signals > 0 };
  }

  /**
   * How many submits (Enter at the agent's input box) were seen, and the number of the latest
   * one the agent took (its text left the input box, or it shows work or a question). An
   * injection confirms its Enter with these; an Enter the agent has not taken opens no turn
   * that could complete.
   */
  override get submits(): { sent: number; taken: number } {
    return { sent: this.submitCount, taken: this.takenCount };
  }

  /**
   * How many loading screens (the preset's `loading`: the input box gone, every key read
   * dropped) began so far: an injection that saw one begin after its paste, and the box back
   * without the text, knows the paste was dropped.
   */
  override get loads(): number {
    return this.loadCount;
  }

  /**
   * The agent did not take the open turn's submit (an injection gave up on it): there is no
   * turn, the session waits for input again.
   */
  override dropUntaken(now: number): DetectorEvent[] {
    const events: DetectorEvent[] = [];
    if (!this.turn || this.turn.accepted) return events;
    this.untaken = this.turn.typed;
    this.turn = null;
    // Still loading (its box gone): busy until the box is back.
    this.setState(this.reloading ? 'busy' : 'idle', now, events);
    return events;
  }

  protected output(
    chunk: Uint8Array,
    _now: number,
    _events: DetectorEvent[],
    scan: ChunkScan,
  ): void {
    if (this.turn) {
      storeOutput(this.turn, chunk, this.outAbs);
      this.turn.outputBytes += chunk.length;
    }
    this.outAbs += chunk.length;
    for (const payload of scan.osc) this.onSignal(payload);
  }

  protected escape(): void {
    // TUIs (Claude Code, Codex, Gemini, Copilot) stop working on Esc, OpenCode on a second one;
    // a dialog's Esc is an answer.
    if (!this.turn || this._state !== 'busy') return;
    this.turn.escapes++;
    if (this.turn.escapes >= this.escapesToInterrupt) this.turn.interrupted = true;
  }

  protected submit(ev: Submit, now: number, events: DetectorEvent[]): void {
    const t = this.turn;
    const untaken = this.untaken;
    this.untaken = null;
    if (!t) {
      // Enter on a box still holding the text of a submit the agent did not take (an
      // injection gave up on it, a route tries it again): that text is what it submits.
      if (ev.text.trim() === '' && untaken !== null && this.inputShows(untaken))
        return this.startTurn({ ...ev, text: untaken }, now, events);
      return this.startTurn(ev, now, events);
    }
    if (!t.accepted) {
      // Enter again while the agent has not taken the last one (its text waits in the input
      // box): this Enter submits that text, or the text typed since. The same text is the same
      // submission, pressed again (an injection's second Enter into an agent slow to show it
      // took the first): its turn keeps what the screen showed at the first Enter — taken for
      // a new turn, the echo drawn meanwhile counted as an older message's and the turn never
      // completed.
      const typed = ev.text.trim() === '' ? t.typed : ev.text;
      if (typed === t.typed) t.submitSeq = ++this.submitCount;
      else this.openTurn(typed, now);
    } else if (t.outputBytes === 0) {
      // Nothing answered the previous submit yet: Enter on an empty input box, this input
      // replaces it.
      this.openTurn(ev.text, now);
    } else if (this._state === 'blocked') {
      // Answering a question mid-turn (a dialog): same turn.
      this.answered = { dialog: dialogOf(this.lastViewport), at: now };
      this.setState('busy', now, events);
    }
  }

  protected openTurn(typed: string, now: number): void {
    this.turn = {
      ...openTurnAt(typed, now, this.outAbs, this.maxTurnBytes),
      screenChanged: false,
      submitSeq: ++this.submitCount,
      accepted: false,
      worked: false,
      // The text may be in the box already (drawn before Enter), which counts as seen there.
      seenHeld: this.inputShows(typed),
      viewportTopAtSubmit: this.lastViewportTop,
      echoesAtSubmit: echoSightings(this.lastLines, answerEnd(this.lastLines, this.c), typed),
      recorded: false,
      recordedTail: null,
      escapes: 0,
      emptyShown: false,
      busyAnswer: '',
      busyAnswers: 0,
      doneAnswer: null,
      doneAt: 0,
      redrawWaitMs: 0,
    };
  }

  /**
   * The agent's own record says the open turn ended (its transcript's or rollout's end of the
   * turn, matched to this turn's prompt by the broker's channel). Nothing else changes: the turn
   * completes when the screen shows the prompt as always (idle, read after all output, the submit
   * taken, the agent seen working or an answer below the echo), only its quiet wait is
   * RECORDED_SETTLE_MS instead of the preset's settle window. A redraw still restarts the wait.
   * The end of the record's answer (answerTail), where it gives one, tells when a streamed answer
   * is drawn whole (see awaitsRedraw).
   */
  override recordedEnd(startedAt: number, now: number, tail?: string | null): DetectorEvent[] {
    const t = this.turn;
    if (!t || t.startedAt !== startedAt || t.recorded) return [];
    t.recorded = true;
    t.recordedTail = tail ?? null;
    return this.evaluate(now);
  }

  /**
   * How long the idle screen must stay unchanged: the preset's settle window, shorter once the
   * agent's record says the open turn ended (never longer: a preset may settle faster) — and
   * only as short as RECORDED_SETTLE_MS once the screen shows the end of the record's answer:
   * until then the last frame may still be on its way in pieces (Codex's long answer on its
   * full screen, paused mid-frame under load, ended the turn on half a frame), and the wait is
   * a TUI's usual one (SCREEN_SETTLE_MS).
   */
  private settleMs(): number {
    const t = this.turn;
    if (!t?.recorded) return this.c.settleMs;
    const drawn = t.recordedTail === null || this.tailOnScreen(t.recordedTail);
    return Math.min(this.c.settleMs, drawn ? RECORDED_SETTLE_MS : SCREEN_SETTLE_MS);
  }

  /** Whether the screen shows `tail` (answerTail), looked at once per screen and tail. */
  private tailOnScreen(tail: string): boolean {
    let seen = this.tailSeen;
    if (seen?.key !== this.screenKey || seen.tail !== tail) {
      seen = { key: this.screenKey, tail, shown: tailDrawn(tail, this.lastViewport.join('\n')) };
      this.tailSeen = seen;
    }
    return seen.shown;
  }

  /**
   * A turn with text on the screen; or one whose answer the agent's record gave, even if the
   * screen never drew it (UNDRAWN_END_MS ran out): the broker joins the record's answer to it,
   * and a turn the agent answered is never dropped.
   */
  protected visible(turn: ScreenTurn, _content: Uint8Array, text: string): boolean {
    return text.trim() !== '' || turn.recordedTail !== null;
  }

  override onScreen(snap: ScreenSnapshot, now: number): DetectorEvent[] {
    const viewport = snap.lines.slice(snap.viewportTop, snap.viewportTop + snap.rows);
    const key = viewport.join('\n');
    if (key !== this.screenKey) {
      this.screenKey = key;
      this.lastChangeAt = now;
      if (this.turn) this.turn.screenChanged = true;
    }
    this.screenSeq = this.outputSeq;
    this.lastLines = snap.lines;
    this.lastViewportTop = snap.viewportTop;
    this.lastViewport = screenLines(viewport);
    const wasLoading = this.lastClass?.loading === true;
    this.lastClass = classifyLines(this.lastViewport, this.c);
    this.armed =
      this.c.interruptArmed.length > 0 &&
      this.lastViewport
        .slice(-this.c.bottomLines)
        .some((line) => firstMatch(this.c.interruptArmed, line) >= 0);
    if (this.lastClass.loading === true) {
      if (!wasLoading) this.loadCount++;
      // Resumed after its box was drawn (Gemini CLI draws it before loading the chat): it no
      // longer takes what is typed.
      if (this.ready) this.reloading = true;
    } else if (this.turn && this.lastClass.state === 'busy') {
      this.turn.worked = true;
      if (this.c.answerRedrawMs > 0 && this.turn.screenChanged) this.noteBusyAnswer(this.turn);
    }
    return this.evaluate(now);
  }

  tick(now: number): DetectorEvent[] {
    return this.evaluate(now);
  }

  /** A busy screen's answer: counted when it differs from the last one (see answerRedrawMs). */
  private noteBusyAnswer(turn: ScreenTurn): void {
    const text = this.partialOf(turn);
    if (text.trim() === '' || text === turn.busyAnswer) return;
    turn.busyAnswer = text;
    turn.busyAnswers++;
  }

  /**
   * An idle settled screen of an agent that may show its turn done before it drew the whole
   * answer (Preset.answerRedrawMs). Where the agent's record gave its answer, the screen is
   * done once it shows that answer's end (tailDrawn), waited for up to UNDRAWN_END_MS.
   * Else, an answer seen while busy (drawn as it streamed, so maybe half-written) waits until
   * the idle screen shows another answer (read here once it settled), the record comes, or the
   * first one stayed answerRedrawMs — UNDRAWN_END_MS while it shows a line only a half-written
   * answer has (Preset.answerUnfinished), seen while busy or not.
   * Any agent's idle screen that shows nothing of an answer its record gave waits so too:
   * Copilot CLI under load drew its prompt back before the answer, and the turn, closed empty,
   * was dropped — the answer drawn after it belonged to no turn, and `ask` waited in vain.
   */
  private awaitsRedraw(turn: ScreenTurn, text: string, now: number): boolean {
    if (turn.interrupted) return false;
    const drawn = turn.recordedTail === null ? null : tailDrawn(turn.recordedTail, text);
    if (drawn === true) return false;
    const undrawn = drawn === false && text.trim() === '';
    // Without a record to tell by: a line that shows the answer half-written.
    const unfinished = drawn === null && this.unfinished(text);
    if (this.c.answerRedrawMs === 0 && !undrawn && !unfinished) return false;
    // No record to tell by (yet: it may come a moment after the screen shows the turn done).
    if (drawn === null && turn.busyAnswers === 0 && !unfinished) return false;
    const waitMs = drawn === false || unfinished ? UNDRAWN_END_MS : this.c.answerRedrawMs;
    turn.redrawWaitMs = waitMs;
    if (turn.doneAnswer === null) {
      turn.doneAnswer = text;
      turn.doneAt = now;
      return true;
    }
    if (now - turn.doneAt >= waitMs) return false;
    // The end, or the rest of a half-written line, not drawn yet: whatever else the screen
    // redrew meanwhile.
    return drawn === false || unfinished || text === turn.doneAnswer;
  }

  /** The answer shows a line of Preset.answerUnfinished (a list item drawn before its text). */
  private unfinished(text: string): boolean {
    const marks = this.c.answerUnfinished;
    return marks.length > 0 && text.split('\n').some((line) => firstMatch(marks, line) >= 0);
  }

  nextDeadline(): number | null {
    const deadline = this.deadline();
    // A screen already looked at on or after its deadline changes only with new output or
    // input: asking for the same deadline again would have the caller tick at once, for good
    // (a turn whose submit the agent has not taken yet stays so; the daemon's timer spun).
    return deadline !== null && deadline <= this.evaluatedAt ? null : deadline;
  }

  /** When the screen should be looked at again, whatever was looked at already. */
  private deadline(): number | null {
    if (!this.waitingForIdle()) return null; // idle is latched until new input
    // A dialog still shown after Enter answered it is looked at again when it has stayed.
    if (this.answered && this.lastClass?.state === 'blocked')
      return this.partShown(this.answered.dialog)
        ? this.lastChangeAt + ANSWERED_DIALOG_MS
        : this.answered.at + ANSWERED_DIALOG_MS;
    if (
      this.lastClass?.state !== 'idle' ||
      !this.screenFresh() ||
      (this.signal !== null && this.signal !== 'idle')
    )
      return null;
    const t = this.turn;
    if (t && t.outputBytes === 0 && t.typed.trim() === '') return t.startedAt + NO_REACTION_MS;
    const settled = this.lastChangeAt + (t?.emptyShown ? this.c.emptyAnswerMs : this.settleMs());
    // Waiting for a streamed answer's redraw: the idle screen is read again when it settled
    // after a change, or when the wait is over.
    if (t?.doneAnswer != null && settled <= this.evaluatedAt) return t.doneAt + t.redrawWaitMs;
    return settled;
  }

  /**
   * The agent reported its state (an OSC payload matching one of the preset's signals): kept
   * as the latest report. A busy (or blocked) report with a submit not yet taken takes it.
   */
  private onSignal(payload: string): void {
    const c = this.c;
    const signal =
      firstMatch(c.blockedSignal, payload) >= 0
        ? 'blocked'
        : firstMatch(c.busySignal, payload) >= 0
          ? 'busy'
          : firstMatch(c.idleSignal, payload) >= 0
            ? 'idle'
            : null;
    if (signal === null) return;
    this.signal = signal;
    // An agent that reports its questions (blockedSignal) and says it works after Enter answered
    // one has closed it: the dialog still drawn is a redraw late on a loaded machine.
    if (signal === 'busy' && this.answered && this.c.blockedSignal.length > 0)
      this.answered.working = true;
    const t = this.turn;
    if (t && signal !== 'idle') {
      t.worked = true;
      if (!t.accepted) {
        t.accepted = true;
        this.takenCount = t.submitSeq;
      }
    }
  }

  /** The latest screen shows the preset's `interruptArmed`: the agent waits for its next key. */
  override get interruptArmed(): boolean {
    return this.armed;
  }

  /** The input line of the latest screen when it is idle (null: not idle, or none on it). */
  override get inputLine(): string | null {
    const cls = this.lastClass;
    if (cls === null || cls.state !== 'idle') return null;
    return this.lastViewport[cls.inputIndex] ?? null;
  }

  /**
   * Whether the input box of the latest screen shows `text` (typed or pasted, not submitted
   * yet): the agent read it.
   */
  override inputShows(text: string): boolean {
    const cls = this.lastClass;
    if (cls === null || cls.state !== 'idle') return false;
    return inputRows(this.lastViewport, cls.inputIndex, this.c).some((i) =>
      inputHolds(this.lastViewport[i] ?? '', text),
    );
  }

  /**
   * The latest screen shows the echo of the turn's input above the input box — one drawn since
   * the submit. Gemini CLI empties its input box at Enter but draws the message's echo only
   * once it starts on it: a question asked before still shows its own echo, with its old
   * answer below, on a screen that looks idle.
   */
  private echoShown(turn: ScreenTurn): boolean {
    const end = answerEnd(this.lastLines, this.c);
    if (echoEnd(this.lastLines, end, turn.typed, undefined, turn.viewportTopAtSubmit) === 0)
      return false;
    const before = turn.echoesAtSubmit;
    if (before.count === 0) return true;
    const now = echoSightings(this.lastLines, end, turn.typed);
    return now.count > before.count || now.newest > before.newest;
  }

  /**
   * Whether the agent took the open turn's submit. It works or asks (a busy or question screen
   * after the submit): taken. Its input line no longer holds the text — once the text was seen
   * there, or its echo shows above the box (an agent quick enough to take text and Enter in one
   * redraw) — on a screen that stayed so for the settle window: taken. An agent still busy
   * drawing the pasted text when Enter comes (Claude Code under load) shows it in the box first;
   * it has not submitted yet. A screen with neither an input line nor a marker, or one that
   * changes still, is a redraw caught half-way (a TUI erases its box before drawing it again,
   * and a loaded machine reads that in two pieces): it says nothing — taken for a submit, Gemini
   * CLI's Enter taken as a newline left the question in its box unanswered for good.
   */
  private checkTaken(now: number): void {
    const t = this.turn;
    const cls = this.lastClass;
    if (!t || t.accepted || !cls || !t.screenChanged) return;
    if (this.inputShows(t.typed)) {
      t.seenHeld = true;
      return;
    }
    if (cls.state === 'idle') {
      if (!t.seenHeld && !this.echoShown(t)) return;
      if (!this.screenFresh() || now - this.lastChangeAt < this.settleMs()) return;
    } else if ((cls.state !== 'busy' || cls.loading === true) && cls.state !== 'blocked') return;
    t.accepted = true;
    this.takenCount = t.submitSeq;
  }

  /** The screen shows part of the answered dialog, for an agent that redraws it whole. */
  private partShown(answered: Dialog | null, shown = dialogOf(this.lastViewport)): boolean {
    return this.c.preset.redrawsWhole === true && partOf(shown, answered);
  }

  private screenFresh(): boolean {
    return this.screenSeq === this.outputSeq;
  }

  private waitingForIdle(): boolean {
    return !this.ready || this.turn !== null || this.reloading;
  }

  private evaluate(now: number): DetectorEvent[] {
    this.evaluatedAt = Math.max(this.evaluatedAt, now);
    const events: DetectorEvent[] = [];
    this.checkTaken(now);
    const cls = this.lastClass;
    if (!cls || !this.waitingForIdle()) return events; // idle is latched until new input
    if (cls.state === 'blocked') {
      const answered = this.answered;
      if (answered) {
        const shown = dialogOf(this.lastViewport);
        const since = sameDialog(shown, answered.dialog)
          ? answered.at
          : this.partShown(answered.dialog, shown)
            ? this.lastChangeAt
            : null;
        // The answered dialog, drawn once more (or in part) before it closes.
        if (since !== null && (now - since < ANSWERED_DIALOG_MS || answered.working === true))
          return events;
      }
      this.answered = null;
      this.reportMenu(readMenu(this.lastViewport), now, events);
      this.setState('blocked', now, events);
      return events;
    }
    this.answered = null;
    if (cls.state === 'busy' || this.signal === 'busy') {
      if (this.ready) this.setState('busy', now, events);
      return events;
    }
    // The agent says it asks: its dialog is being drawn (the screen will say so).
    if (this.signal === 'blocked') return events;
    if (cls.state !== 'idle' || !this.screenFresh() || now - this.lastChangeAt < this.settleMs())
      return events;
    if (!this.ready) {
      this.becomeReady(now, events);
      return events;
    }
    const turn = this.turn;
    if (!turn) {
      // Its box is back after a loading screen: it takes input again.
      this.reloading = false;
      this.setState('idle', now, events);
      return events;
    }
    // Enter on an empty input box that nothing answered. A submitted text is given longer: an
    // agent on a loaded machine reacts late (an injection gives up on it, see dropUntaken).
    if (turn.outputBytes === 0 && turn.typed.trim() === '') {
      if (now - turn.startedAt >= NO_REACTION_MS) {
        this.turn = null;
        this.setState('idle', now, events);
      }
      return events;
    }
    if (!turn.screenChanged) return events; // the answer has not reached the screen yet
    if (!turn.accepted) return events; // the submitted text still waits in the input box
    const text = extractAnswer(this.lastLines, turn.typed, this.c.preset, {
      fallbackStart: turn.viewportTopAtSubmit,
    });
    // Taken but not answered yet: an agent that queued the message (Gemini CLI still starting,
    // Codex still loading) or has not started on it shows its input box as when idle. Without
    // having seen it work, only an answer below the echo of the message shows it is done — or
    // the agent's own record of its end: a loaded machine may render a quick answer's busy
    // frames in one go, and a long one scrolls the echo off a full-screen agent (OpenCode).
    if (!turn.worked && !turn.recorded && (text.trim() === '' || !this.echoShown(turn)))
      return events;
    // Nothing of the answer to a message on the screen yet: OpenCode shows the turn done (its
    // footer, the duration on its status line) a frame before it draws the answer — longer
    // before on a loaded machine. Ended now, the turn would be dropped as empty and its answer
    // drawn after it belong to no turn. The preset says how long nothing stays nothing.
    if (
      text.trim() === '' &&
      turn.typed.trim() !== '' &&
      now - this.lastChangeAt < this.c.emptyAnswerMs
    ) {
      turn.emptyShown = true;
      return events;
    }
    if (this.awaitsRedraw(turn, text, now)) return events;
    const prompt = cls.inputIndex >= 0 ? (this.lastViewport[cls.inputIndex] ?? '') : '';
    this.closeTurn(turn, this.outAbs, prompt, now, events, () => text);
    return events;
  }

  protected partialOf(turn: ScreenTurn): string {
    if (!turn.screenChanged || turn.outputBytes === 0) return '';
    return extractAnswer(this.lastLines, turn.typed, this.c.preset, {
      fallbackStart: turn.viewportTopAtSubmit,
    });
  }
}
