import type { CommandModule } from 'yargs';
import attach from './attach.js';
import classify from './classify.js';
import ask from './ask.js';
import capture from './capture.js';
import deliver from './deliver.js';
import paste from './paste.js';
import relay from './relay.js';
import report from './report.js';
import show from './show.js';
import turns from './turns.js';
import wait from './wait.js';
import daemon from './daemon.js';
import kill from './kill.js';
import ls from './ls.js';
import map from './map.js';
import navigate from './navigate.js';
import newCommand from './new.js';
import rm from './rm.js';
import send from './send.js';

// The command table: one file per command (tmux's cmd-*.c), registered here once.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [
  newCommand,
  attach,
  ls,
  kill,
  rm,
  send,
  turns,
  show,
  capture,
  paste,
  relay,
  wait,
  ask,
  deliver,
  daemon,
  map,
  navigate,
  report,
  classify,
];
