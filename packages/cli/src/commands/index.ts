import type { CommandModule } from 'yargs';

// The command table: one file per command (tmux's cmd-*.c), registered here once.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [];
