# Startup cost: discovery, config, one ref.
title='rev-parse HEAD (startup)'
target=''
corpus=small
dir='$CORPUS/tree'
cmd='@GIT@ rev-parse HEAD'
runs=50
warmup=5
