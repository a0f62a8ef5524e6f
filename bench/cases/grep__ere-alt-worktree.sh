# Issue 5: -E alternation of 5 words, worktree (target <= 0.7).
title='grep -E 5-word alternation, worktree'
target='≤ 0.7'
corpus=kernel
dir='$CORPUS/linux'
cmd='@GIT@ grep -E "INITRAMFS_ROOT_UID|CONFIG_BLK_DEV_FOO|kvm_arch_vcpu_ioctl_run|sched_clock_stable|devm_kmemdup_array"'
runs=5
warmup=1
