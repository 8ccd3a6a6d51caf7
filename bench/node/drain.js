'use strict';
// drain.js: one ptybench measurement of node-pty + @xterm/headless.
//
//   node drain.js --file F --cols C --rows R --scrollback S --expect N
//
// spawns `cat F` under node-pty at C×R, writes every chunk into a headless
// xterm.js Terminal, and once xterm.js has parsed N bytes (the file after
// the tty's ONLCR), prints {"elapsed_ns": …, "cpu_ns": …, "bytes": …} on
// stdout. The clock runs from just before the spawn, after node and both
// modules have loaded; cpu_ns is process.cpuUsage() (user + system, all
// threads) over the same span.
//
//   node drain.js --probe
//
// loads both modules and spawns `true`, to tell whether this peer can run.

const pty = require('node-pty');
const { Terminal } = require('@xterm/headless');

function parseArgs(argv) {
  const a = { cols: 120, rows: 40, scrollback: 200, expect: 0, file: '', probe: false, timeoutMs: 300000 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    switch (k) {
      case '--probe': a.probe = true; break;
      case '--file': a.file = v; i++; break;
      case '--cols': a.cols = Number(v); i++; break;
      case '--rows': a.rows = Number(v); i++; break;
      case '--scrollback': a.scrollback = Number(v); i++; break;
      case '--expect': a.expect = Number(v); i++; break;
      case '--timeout-ms': a.timeoutMs = Number(v); i++; break;
      default: fail(`unknown argument ${k}`);
    }
  }
  return a;
}

function fail(msg) {
  process.stderr.write(`drain.js: ${msg}\n`);
  process.exit(1);
}

function probe() {
  const p = pty.spawn('true', [], { cols: 80, rows: 24, cwd: process.cwd(), env: process.env });
  p.onExit(() => { process.stdout.write('ok\n'); process.exit(0); });
  setTimeout(() => fail('probe: child did not exit within 10 s'), 10000).unref();
}

function measure(a) {
  if (!a.file || !(a.expect > 0)) fail('--file and --expect are required');
  const term = new Terminal({ cols: a.cols, rows: a.rows, scrollback: a.scrollback, allowProposedApi: true });
  let got = 0; // bytes received from node-pty
  let parsed = 0; // bytes xterm.js has finished parsing
  let finished = false;
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  // The child stays alive after cat: node-pty 1.1.0 drops the output still
  // in the PTY when a child exits while node is busy (seen here with 2 MiB:
  // about 13 KiB lost), so the clock stops on the last parsed byte instead
  // of on exit, and the child is killed after that.
  const child = pty.spawn('sh', ['-c', 'cat "$1" && exec sleep 3600', 'sh', a.file], {
    name: 'xterm-256color', cols: a.cols, rows: a.rows, cwd: process.cwd(), env: process.env,
  });
  const finish = () => {
    if (finished || parsed < a.expect) return;
    finished = true;
    const ns = process.hrtime.bigint() - start;
    const cpu = process.cpuUsage(cpu0);
    child.kill('SIGKILL');
    process.stdout.write(JSON.stringify({ elapsed_ns: Number(ns), cpu_ns: (cpu.user + cpu.system) * 1000, bytes: parsed }) + '\n');
    term.dispose();
    process.exit(0);
  };
  child.onData((d) => {
    const n = Buffer.byteLength(d, 'utf8');
    got += n;
    // The callback runs once xterm.js has parsed this chunk.
    term.write(d, () => { parsed += n; finish(); });
  });
  child.onExit(() => {
    if (!finished) fail(`child exited with ${got} of ${a.expect} bytes read, ${parsed} parsed`);
  });
  setTimeout(() => fail(`timed out after ${a.timeoutMs} ms with ${got} of ${a.expect} bytes`), a.timeoutMs).unref();
}

const args = parseArgs(process.argv.slice(2));
if (args.probe) probe(); else measure(args);
