import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Packr, Unpackr } from 'msgpackr';
import { repoRoot } from './paths.js';

// A real headless Neovim for tests of the editor plugin (editors/nvim), driven the way an
// editor UI drives it: msgpack-RPC on its --listen socket (`:h rpc`).

/** How long Neovim may take to start and open its --listen socket on a loaded 2-core box. */
export const NVIM_START_TIMEOUT_MS = 10_000;
/** How long one RPC call may take: they run Lua that returns at once (the plugin is async). */
export const NVIM_CALL_TIMEOUT_MS = 15_000;
/** How long `dispose()` waits for `:qa!` to end the process before SIGKILL by PID. */
export const NVIM_EXIT_TIMEOUT_MS = 3_000;
/** Pause between checks for the --listen socket while Neovim starts. */
const NVIM_POLL_MS = 20;

/** The plugin's directory: what a user adds to 'runtimepath'. */
export const nvimPluginDir = path.join(repoRoot, 'editors', 'nvim');

const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true });

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class Nvim {
  private readonly unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffered: Buffer = Buffer.alloc(0);
  private stderr = '';
  readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    private socket: net.Socket | null = null,
  ) {
    child.stderr?.on('data', (d: Buffer) => (this.stderr = (this.stderr + d).slice(-4_000)));
    child.stdout?.on('data', () => {});
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts `nvim --headless` with no user config, the plugin on its runtimepath and the given
   * environment (the test's DaemonEnv: its XDG_RUNTIME_DIR decides which daemon the plugin finds).
   */
  static async start(env: NodeJS.ProcessEnv, cwd?: string): Promise<Nvim> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-nvim-'));
    const listen = path.join(dir, 'nvim.sock');
    const child = spawn(
      'nvim',
      [
        '--headless',
        '-u',
        'NONE',
        '-i',
        'NONE',
        '-n',
        '--listen',
        listen,
        '--cmd',
        `set rtp^=${nvimPluginDir}`,
        '--cmd',
        'runtime plugin/clippy.lua',
      ],
      { env, cwd: cwd ?? dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const nvim = new Nvim(child, dir);
    let gone = false;
    void nvim.exited.then(() => (gone = true));
    const deadline = Date.now() + NVIM_START_TIMEOUT_MS;
    for (;;) {
      if (fs.existsSync(listen)) {
        try {
          nvim.socket = await new Promise<net.Socket>((resolve, reject) => {
            const s = net.createConnection(listen, () => resolve(s));
            s.once('error', reject);
          });
          break;
        } catch {
          // Not accepting yet: poll again.
        }
      }
      if (gone || Date.now() > deadline) {
        await nvim.dispose();
        throw new Error(`nvim did not start (${gone ? 'it exited' : 'timeout'}): ${nvim.stderr}`);
      }
      await new Promise((r) => setTimeout(r, NVIM_POLL_MS));
    }
    nvim.socket!.on('data', (d: Buffer) => nvim.onData(d));
    nvim.socket!.on('error', () => {});
    // Messages are recorded, not shown: headless Neovim has no screen to show them on.
    await nvim.lua(`
      _G.clippy_test_notes = {}
      vim.notify = function(msg, level)
        table.insert(_G.clippy_test_notes, { msg = msg, level = level or vim.log.levels.INFO })
      end
    `);
    return nvim;
  }

  private onData(d: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, d]) : d;
    let values: unknown[] = [];
    try {
      values = this.unpackr.unpackMultiple(this.buffered) as unknown[];
      this.buffered = Buffer.alloc(0);
    } catch (err) {
      // An incomplete message at the end: msgpackr says how far the complete ones went.
      const e = err as { incomplete?: boolean; lastPosition?: number; values?: unknown[] };
      if (!e.incomplete) throw err;
      values = e.values ?? [];
      this.buffered = this.buffered.subarray(e.lastPosition ?? 0);
    }
    for (const v of values) {
      const msg = v as unknown[];
      if (msg[0] !== 1) continue; // requests and notifications from Neovim: none expected
      const p = this.pending.get(msg[1] as number);
      if (!p) continue;
      this.pending.delete(msg[1] as number);
      if (msg[2] !== null && msg[2] !== undefined) {
        const e = msg[2] as unknown[];
        p.reject(new Error(`nvim: ${String(Array.isArray(e) ? e[1] : JSON.stringify(e))}`));
      } else p.resolve(msg[3]);
    }
  }

  /** Calls an API function (`nvim_command`, `nvim_exec_lua`, …). */
  request(method: string, params: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`nvim did not answer ${method} within ${NVIM_CALL_TIMEOUT_MS} ms`));
      }, NVIM_CALL_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.socket!.write(packr.pack([0, id, method, params]));
    });
  }

  /** Runs Lua code (its `...` are `args`) and returns what it returns. */
  lua<T = unknown>(code: string, ...args: unknown[]): Promise<T> {
    return this.request('nvim_exec_lua', [code, args]) as Promise<T>;
  }

  /** Runs an Ex command, as typed after `:`. */
  command(cmd: string): Promise<unknown> {
    return this.request('nvim_command', [cmd]);
  }

  /** The messages the plugin gave through vim.notify so far. */
  notes(): Promise<{ msg: string; level: number }[]> {
    return this.lua('return _G.clippy_test_notes');
  }

  /** The lines of the buffer whose name is exactly `name`, or null when there is none. */
  bufferLines(name: string): Promise<string[] | null> {
    return this.lua(
      `for _, b in ipairs(vim.api.nvim_list_bufs()) do
         if vim.api.nvim_buf_get_name(b) == ... then
           return vim.api.nvim_buf_get_lines(b, 0, -1, false)
         end
       end
       return vim.NIL`,
      name,
    );
  }

  /** Quits Neovim; kills it by PID if it does not go; removes its directory. */
  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      if (this.socket) this.socket.write(packr.pack([2, 'nvim_command', ['qa!']]));
      const timer = setTimeout(() => this.child.kill('SIGKILL'), NVIM_EXIT_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
    this.socket?.destroy();
    for (const p of this.pending.values()) p.reject(new Error('nvim exited'));
    this.pending.clear();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
