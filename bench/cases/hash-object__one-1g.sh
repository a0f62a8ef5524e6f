# Issue 2: above core.bigFileThreshold git deflates the whole file even to
# print its hash (~22 s here); fgit should not.  On demand only (1 GiB corpus):
#   bench/run hash-object__one-1g
title='hash-object, one 1 GiB file'
target=''
corpus=file1g
dir='$CORPUS/tree'
cmd='@GIT@ hash-object d00/f000000'
runs=3
warmup=0
manual=1
