/**
 * What may reach a program's input when clippy types text into it (`send`, `paste`, `relay`,
 * `deliver --sink inject`, a wrapper's `inject` push). Text is content, never keys: a control
 * character inside it would act on the input side instead — ESC starts a sequence (the paste
 * end marker `ESC[201~` among them, which would end a bracketed paste early and type the rest
 * as keystrokes), Ctrl-C/Ctrl-Z/Ctrl-\ make the line discipline signal the foreground process,
 * Ctrl-D ends input, DEL and Ctrl-U/W erase what came before. So every such character is
 * replaced by a visible stand-in before the text is framed, whatever the target's mode:
 *
 * - C0 controls other than TAB, LF and CR, and DEL: their Unicode Control Picture (ESC -> ␛,
 *   Ctrl-C -> ␃, DEL -> ␡), so a reader still sees that something was there;
 * - C1 controls (U+0080-U+009F, 8-bit CSI among them): U+FFFD;
 * - bytes that are not UTF-8: U+FFFD (injected text is text; exact bytes go to a file sink).
 *
 * Keys (Enter, arrows, Ctrl-C) are sent as keys, never as text.
 */

/** C0 controls kept in text: TAB, LF and CR are how text is laid out. */
const KEPT_C0 = new Set([0x09, 0x0a, 0x0d]);
/** First code point of Unicode's Control Pictures block: U+2400 is ␀, U+2401 ␁, … */
const CONTROL_PICTURES = 0x2400;
/** Control Picture for DEL (␡). */
const DEL_PICTURE = '\u2421';
const REPLACEMENT = '\ufffd';

/** Matches every character that must not be injected (see the file comment). */
const UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

/** True when `bytes` hold a control byte, DEL or a byte of a multi-byte sequence (the slow path). */
function needsWork(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b >= 0x7f || (b < 0x20 && !KEPT_C0.has(b))) return true;
  }
  return false;
}

function picture(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(CONTROL_PICTURES + code);
  if (code === 0x7f) return DEL_PICTURE;
  return REPLACEMENT;
}

/** `bytes` with every control character replaced as the file comment says; plain text unchanged. */
export function neutralizeControls(bytes: Uint8Array): Buffer {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!needsWork(buf)) return buf;
  // Decoding replaces malformed UTF-8 with U+FFFD; the regex then handles C0, DEL and C1.
  return Buffer.from(buf.toString('utf8').replace(UNSAFE, picture), 'utf8');
}
