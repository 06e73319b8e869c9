#!/usr/bin/env python3
"""Sorts the samples of `perf script` output (recorded with -g) into categories by the first system-call path on
their stack, per thread group (the loop, the device I/O threads, other JVM threads, nbdkit), and prints each one's
share and, given the row's CPU per request, its microseconds per request (scripts/nbd-row-profile.sh).
    python3 scripts/perf-categories.py PERF_SCRIPT_OUTPUT [CPU_US_PER_REQUEST]"""
import collections
import sys

# First match wins: a sample inside a socket write that delivers over loopback is a socket write, whatever else.
RULES = [('socket read', ('sock_recvmsg', 'tcp_recvmsg')), ('socket write', ('tcp_sendmsg', 'sock_write_iter')),
         ('file write', ('__x64_sys_pwrite64', 'ext4_buffered_write_iter', 'vfs_write')),
         ('file read', ('__x64_sys_pread64', 'filemap_read', 'ext4_file_read_iter')),
         ('epoll/futex', ('do_epoll_wait', 'ep_poll', 'futex')), ('page fault', ('asm_exc_page_fault',)),
         ('other kernel', ('entry_SYSCALL_64', '[kernel.kallsyms]'))]


def group(comm):
    if comm.startswith('blockcache-loo'):
        return 'loop'
    if comm.startswith('file-device'):
        return 'io-threads'
    if comm.startswith('nbdkit'):
        return 'nbdkit'
    return 'jvm'


def main():
    counts = collections.Counter()
    total = 0
    for sample in open(sys.argv[1]).read().split('\n\n'):
        lines = sample.strip().split('\n')
        if len(lines) < 2:
            continue
        total += 1
        grp = group(lines[0].split()[0])
        stack = '\n'.join(lines[1:])
        category = 'user'
        for name, keys in RULES:
            if any(key in stack for key in keys):
                category = name
                break
        if grp == 'jvm':
            category = 'jit/gc/other'
        counts[(grp, category)] += 1
    us = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    for (grp, category), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{grp:10s} {category:14s} {100 * n / total:5.1f}%  {us * n / total:6.2f} us/req")


if __name__ == '__main__':
    main()
