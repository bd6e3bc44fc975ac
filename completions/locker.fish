complete --keep-order --exclusive --command locker --arguments "(COMPLETE=fish locker -- (commandline --current-process --tokenize --cut-at-cursor) (commandline --current-token))"
