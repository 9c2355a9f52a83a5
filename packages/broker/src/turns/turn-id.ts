// The turn-ID format lives in @clippy/protocol (turn-id.ts); this file goes when its last
// importers (handlers, session-glue) are edited after the handler ports land.
export { formatTurnId, parseTurnId, type TurnRef } from '@clippy/protocol';
