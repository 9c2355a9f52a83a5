import { randomBytes } from 'node:crypto';
import { SESSION_ID_LENGTH } from '../constants.js';
import type { Session } from './session.js';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** Removed sessions remembered (by name and ID) so that `revive` can say what became of them. */
const REMOVED_REMEMBERED = 100;

/** How a removed session went: `kill` (which removes what it ends) or `rm`. */
export type RemovedBy = 'kill' | 'rm';

/**
 * The broker's map of sessions (live and exited, in creation order) and the authority on
 * IDs and names: IDs are never reused within the daemon's life; names are unique among live
 * sessions, and a default name is unique among every listed session so it names one only.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly issued = new Set<string>();
  /** Sessions removed lately, by name and by ID (oldest first): what `revive` tells. */
  private readonly gone = new Map<string, { name: string; by: RemovedBy }>();

  /** A fresh opaque ID: random base32, checked against every ID issued so far. */
  newId(): string {
    for (;;) {
      const bytes = randomBytes(SESSION_ID_LENGTH);
      let id = '';
      for (const b of bytes) id += BASE32[b & 31];
      if (!this.issued.has(id)) {
        this.issued.add(id);
        return id;
      }
    }
  }

  add(session: Session): void {
    // Restored sessions' IDs are taken too: never reused.
    this.issued.add(session.id);
    this.sessions.set(session.id, session);
  }

  delete(session: Session): void {
    this.sessions.delete(session.id);
  }

  /** Takes a session out for good (`kill`, `rm`), remembering how (see `removed`). */
  remove(session: Session, by: RemovedBy): void {
    this.delete(session);
    const entry = { name: session.name, by };
    for (const key of [session.name, session.id]) {
      this.gone.delete(key);
      this.gone.set(key, entry);
    }
    while (this.gone.size > REMOVED_REMEMBERED * 2)
      this.gone.delete(this.gone.keys().next().value!);
  }

  /** A session removed lately under this name or ID (none listed has it now). */
  removed(ref: string): { name: string; by: RemovedBy } | undefined {
    return this.resolve(ref) ? undefined : this.gone.get(ref);
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  live(): Session[] {
    return this.all().filter((s) => s.live);
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Finds a session by ID, else by name: a live session with that name, else the newest
   * exited one (names of exited sessions may be reused by new sessions).
   */
  resolve(ref: string): Session | undefined {
    const byId = this.sessions.get(ref);
    if (byId) return byId;
    let exited: Session | undefined;
    for (const s of this.sessions.values()) {
      if (s.name !== ref) continue;
      if (s.live) return s;
      exited = s;
    }
    return exited;
  }

  /** Whether a live session already has this name (or this is the ID of a listed session). */
  nameTaken(name: string): boolean {
    if (this.sessions.has(name)) return true;
    for (const s of this.sessions.values()) if (s.live && s.name === name) return true;
    return false;
  }

  /** `base`, or `base-2`, `base-3`, ... : the first not used by any listed session or ID. */
  uniqueName(base: string): string {
    const used = new Set<string>();
    for (const s of this.sessions.values()) {
      used.add(s.name);
      used.add(s.id);
    }
    if (!used.has(base)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (!used.has(candidate)) return candidate;
    }
  }
}
