/** The keys `clippy hotkeys` grabs when neither its options nor config.json name others. */
export const DEFAULT_CAPTURE_KEY = 'super+shift+c';
export const DEFAULT_PASTE_KEY = 'super+shift+v';
/** Where outcomes show by default: a desktop notification when one can be shown, else the terminal. */
export const DEFAULT_FEEDBACK = 'auto';
