#!/usr/bin/env python3
"""Reads async-profiler's collapsed stacks (with `ann`: kernel frames end in _[k]) of a blockcache server and prints
the event loop's time per request (scripts/nbd-own-code.sh): user time by the innermost io.blockcache method on the
stack (what that method and the JDK code it calls cost), kernel time by entry, and inclusive time per own method.
The loop's samples are those under RealLoop.runLoop; times are scaled so that all samples make CPU_US_PER_REQUEST.
    python3 scripts/own-code.py COLLAPSED CPU_US_PER_REQUEST"""
import collections
import sys


def main():
    rows = [line.rsplit(' ', 1) for line in open(sys.argv[1]) if line.strip()]
    us_per_sample = float(sys.argv[2]) / sum(int(n) for _, n in rows)
    own, kernel, inclusive = collections.Counter(), collections.Counter(), collections.Counter()
    loop_samples = 0
    for stack, n in rows:
        n = int(n)
        frames = stack.split(';')
        if not any('RealLoop.runLoop' in f for f in frames):
            continue
        loop_samples += n
        ours = [f.split('_[')[0] for f in frames if f.startswith('io/blockcache')]
        if frames[-1].endswith('_[k]'):
            kernel[next(f for f in frames if f.endswith('_[k]'))] += n
        else:
            own[ours[-1] if ours else '(outside own code) ' + frames[-1]] += n
        for method in set(ours):
            inclusive[method] += n
    print(f"loop thread: {loop_samples * us_per_sample:.2f} us per request, user "
          f"{sum(own.values()) * us_per_sample:.2f}, kernel {sum(kernel.values()) * us_per_sample:.2f}")
    for title, counts, rows_max in (('user time by innermost own method', own, 30),
                                    ('kernel time by entry', kernel, 5), ('inclusive', inclusive, 40)):
        print('--- ' + title)
        for name, n in counts.most_common(rows_max):
            print(f"{n * us_per_sample:7.3f}  {name}")


if __name__ == '__main__':
    main()
