export { AnsiStripper, stripAnsi } from './ansi-stripper.js';
export { TextRenderer } from './text-renderer.js';
export {
  OutputScan,
  TRACKED_MODES,
  type ChunkScan,
  type LineLocalListener,
  type OutputScanOptions,
} from './output-scan.js';
export { inputHolds } from './input-box.js';
export type {
  MultilineSetting,
  Preset,
  PresetAgent,
  PresetKind,
  UserPreset,
  UserPresets,
} from './preset-types.js';
export { PRESET_AGENTS, UserPresetSchema, UserPresetsSchema } from './preset-types.js';
export { applyMultiline, multilineForm, MultilineError, type MultilineForm } from './multiline.js';
export { BUILTIN_PRESETS } from './builtin-presets.js';
export {
  PresetError,
  resolvePreset,
  presetNames,
  parseUserPresets,
  compilePreset,
  compileRegex,
  type CompiledPreset,
  type ResolveOptions,
} from './presets.js';
export { type LineRegex, compileUserRegex, UnsupportedRegexError } from './user-regex.js';
export { classifyScreen, type Classification, type ScreenState } from './classify.js';
export { extractAnswer } from './extract.js';
export { readMenu, type Menu, type MenuOption, type MenuStyle } from './menu.js';
export { sameDialog, type DialogRead } from './same-dialog.js';
export { answerTail } from './answer-drawn.js';
export { InputTracker, type InputEvent } from './input-tracker.js';
export {
  TurnDetector,
  type DetectorEvent,
  type ScreenSnapshot,
  type SessionState,
  type TurnDetectorOptions,
} from './detector.js';
export * from './constants.js';
