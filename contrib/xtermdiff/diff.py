#!/usr/bin/env python3
"""Random byte streams drawn by a real xterm and by wr's screen model,
compared as text: where they differ, wr probably draws wrong.

usage (from the repository root, with xterm and an X display):
  Xvfb :99 & export DISPLAY=:99
  python3 contrib/xtermdiff/diff.py COLS ROWS COUNT SEED

Prints each stream that differs (as a Python string), both screens, and
a count. Differences of representation are not counted: xterm prints a
wide character's second column as U+FFFF and composes accents. Known
xterm quirks wr does not copy (docs/design.md section 9): 1047 showing
what was left on the alternate screen, and DECSTR followed by DECRC.
"""
import os, random, subprocess, sys, tempfile, unicodedata

here = os.path.dirname(os.path.abspath(__file__))
cols, rows, count, seed = (int(a) for a in sys.argv[1:5])
random.seed(seed)
pieces = ['y' * 3, 'y' * cols, 'y' * (cols - 1), 'abc', 'Q', '\u4e2d', 'e\u0301', '\U0001F600',
          '\r', '\n', '\b', '\t', '\x1b[K', '\x1b[1K', '\x1b[2K', '\x1b[J', '\x1b[1J',
          '\x1b[2L', '\x1b[L', '\x1b[2M', '\x1b[3@', '\x1b[2P', '\x1b[4X', '\x1b[2S', '\x1b[2T',
          '\x1bM', '\x1bD', '\x1bE', '\x1b[2;4r', '\x1b[r', '\x1b[?6h', '\x1b[?6l', '\x1b[4h', '\x1b[4l',
          f'\x1b[3;{cols - 2}H', f'\x1b[{rows};{cols}H', f'\x1b[1;{cols - 1}H', '\x1b[5G', '\x1b[3d',
          '\x1b[2A', '\x1b[3B', '\x1b[5C', '\x1b[2D', '\x1b[2E', '\x1b[F', '\x1b[2e', '\x1b[3a',
          '\x1bH', '\x1b[g', '\x1b[3g', '\x1b[2I', '\x1b[Z', '\x1b(0qx\x1b(B', '\x1b7', '\x1b8',
          '\x1b[?7l', '\x1b[?7h', '\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l', '\x1b[2b', '\x1b[!p']


def lines(text):
    text = unicodedata.normalize('NFC', text).replace('\uffff', '')
    out = [l.rstrip() for l in text.split('\n')]
    while out and out[-1] == '':
        out.pop()
    return out


work = tempfile.mkdtemp(prefix='xtermdiff.')
streams = []
for i in range(count):
    s = ''.join(random.choice(pieces) for _ in range(random.randint(3, 14))) + 'Z'
    name = os.path.join(work, f's{i}')
    with open(name, 'wb') as f:
        f.write(s.encode())
    subprocess.run([os.path.join(here, 'xtermshot.sh'), str(cols), str(rows), name, name + '.xterm'], check=True)
    streams.append((name, s))
feed = subprocess.run(['go', 'run', './contrib/xtermdiff/feed', str(cols), str(rows)] + [n for n, _ in streams],
                      capture_output=True, text=True, check=True).stdout.split('\x00\n')
bad = 0
for (name, s), got in zip(streams, feed):
    with open(name + '.xterm', encoding='utf-8', errors='replace') as f:
        want = lines(f.read())
    if lines(got) != want:
        bad += 1
        print('differs:', repr(s))
        print('  wr:   ', lines(got))
        print('  xterm:', want)
print(f'{count} streams at {cols}x{rows}, seed {seed}: {bad} differ (files in {work})')
