# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_locker_global_optspecs
    string join \n R/repo= json q/quiet h/help V/version
end

function __fish_locker_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_locker_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_locker_using_subcommand
    set -l cmd (__fish_locker_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c locker -n "__fish_locker_needs_command" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_needs_command" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_needs_command" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_needs_command" -s V -l version -d 'Print version'
complete -c locker -n "__fish_locker_needs_command" -f -a "init" -d 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
complete -c locker -n "__fish_locker_needs_command" -f -a "pad" -d 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
complete -c locker -n "__fish_locker_needs_command" -f -a "append" -d 'Append one block to a pad (same as `locker pad append`)'
complete -c locker -n "__fish_locker_needs_command" -f -a "seal" -d 'Seal a pad (same as `locker pad seal`)'
complete -c locker -n "__fish_locker_needs_command" -f -a "deposit" -d 'Create, fill and seal a pad in one atomic step'
complete -c locker -n "__fish_locker_needs_command" -f -a "log" -d 'Show the journal, newest first, like `git log`'
complete -c locker -n "__fish_locker_needs_command" -f -a "verify" -d 'Check the repository\'s integrity, like `git fsck`, or one pad\'s'
complete -c locker -n "__fish_locker_needs_command" -f -a "completions" -d 'Print a shell completion script for SHELL to stdout'
complete -c locker -n "__fish_locker_needs_command" -f -a "util" -d 'Developer tools'
complete -c locker -n "__fish_locker_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand init" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand init" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand init" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand init" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "create" -d 'Create an empty pad and print its write key and read ticket (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "append" -d 'Append one block to a pad'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "seal" -d 'Seal a pad: no more appends; the stored chain is re-checked first'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "ticket" -d 'Mint a read ticket for a pad (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "revoke-ticket" -d 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "show" -d 'Show a pad\'s manifest: state, block count, bytes, head and times'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "read" -d 'Read blocks FROM..=TO of a pad with a read ticket'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "list" -d 'List pads with their state, blocks and head'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l ttl -d 'Seconds until the pad expires unless sealed (1–2592000)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l max-blocks -d 'Most blocks the pad may hold (1–4096)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s d -l data -d 'Use TEXT as the payload' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l content-type -d 'The block\'s content type' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l type -d '`read_once` opens a read lease at its first read; `read_unlimited` reads until revoked' -r -f -a "read_once\t''
read_unlimited\t''"
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l from -d 'First block to read' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l to -d 'Last block to read (inclusive; default: the last block)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l ticket -d 'A read ticket for the pad' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l ticket-file -d 'Read the ticket from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l raw -d 'Write the payloads\' exact bytes to stdout, one after another'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l state -d 'Only pads in this state' -r -f -a "open\t''
sealed\t''
expired\t''"
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l limit -d 'Most pads to list' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an empty pad and print its write key and read ticket (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "append" -d 'Append one block to a pad'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "seal" -d 'Seal a pad: no more appends; the stored chain is re-checked first'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "ticket" -d 'Mint a read ticket for a pad (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "revoke-ticket" -d 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a pad\'s manifest: state, block count, bytes, head and times'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "read" -d 'Read blocks FROM..=TO of a pad with a read ticket'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "list" -d 'List pads with their state, blocks and head'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand append" -s d -l data -d 'Use TEXT as the payload' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l content-type -d 'The block\'s content type' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand append" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand append" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand append" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand append" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand seal" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand seal" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand seal" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand seal" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand seal" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand seal" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand deposit" -l envelope -d 'The `locker.handoff.v1` envelope (`-` for stdin)' -r -F
complete -c locker -n "__fish_locker_using_subcommand deposit" -l artifact -d 'A file to add as one block after the envelope (repeatable, in order)' -r -F
complete -c locker -n "__fish_locker_using_subcommand deposit" -l ttl -d 'The pad\'s TTL in seconds (1–2592000), kept for compatibility: a deposited pad is sealed at once, and sealed pads do not expire' -r
complete -c locker -n "__fish_locker_using_subcommand deposit" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand deposit" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand deposit" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand deposit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand log" -l kind -d 'Only entries of this kind (`pad.append`), or of this family when it ends with `.` (`pad.`)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l subject -d 'Only entries about this subject (`pad:<id>`, `repo`)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l actor -d 'Only entries by this actor (`operator`, or an agent\'s name)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l scope -d 'Only entries in this scope' -r
complete -c locker -n "__fish_locker_using_subcommand log" -s n -l limit -d 'Show at most N entries (1–10000)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l after -d 'Only entries after sequence number SEQ' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l before -d 'Only entries before sequence number SEQ' -r
complete -c locker -n "__fish_locker_using_subcommand log" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand log" -l reverse -d 'Oldest first'
complete -c locker -n "__fish_locker_using_subcommand log" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand log" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand verify" -l expect-head -d 'Also require this head: the pad\'s head with PAD, else the journal\'s head hash' -r
complete -c locker -n "__fish_locker_using_subcommand verify" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand verify" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand completions" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand completions" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand completions" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand completions" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand util; and not __fish_seen_subcommand_from generate-docs help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand util; and not __fish_seen_subcommand_from generate-docs help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand util; and not __fish_seen_subcommand_from generate-docs help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand util; and not __fish_seen_subcommand_from generate-docs help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand util; and not __fish_seen_subcommand_from generate-docs help" -f -a "generate-docs" -d 'Write the man pages and completion scripts into `man/` and `completions/`'
complete -c locker -n "__fish_locker_using_subcommand util; and not __fish_seen_subcommand_from generate-docs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand util; and __fish_seen_subcommand_from generate-docs" -l out-dir -d 'The directory holding `man/` and `completions/`' -r -F
complete -c locker -n "__fish_locker_using_subcommand util; and __fish_seen_subcommand_from generate-docs" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand util; and __fish_seen_subcommand_from generate-docs" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand util; and __fish_seen_subcommand_from generate-docs" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand util; and __fish_seen_subcommand_from generate-docs" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand util; and __fish_seen_subcommand_from help" -f -a "generate-docs" -d 'Write the man pages and completion scripts into `man/` and `completions/`'
complete -c locker -n "__fish_locker_using_subcommand util; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "init" -d 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "pad" -d 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "append" -d 'Append one block to a pad (same as `locker pad append`)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "seal" -d 'Seal a pad (same as `locker pad seal`)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "deposit" -d 'Create, fill and seal a pad in one atomic step'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "log" -d 'Show the journal, newest first, like `git log`'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "verify" -d 'Check the repository\'s integrity, like `git fsck`, or one pad\'s'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "completions" -d 'Print a shell completion script for SHELL to stdout'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "util" -d 'Developer tools'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init pad append seal deposit log verify completions util help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "create" -d 'Create an empty pad and print its write key and read ticket (shown once)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "append" -d 'Append one block to a pad'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "seal" -d 'Seal a pad: no more appends; the stored chain is re-checked first'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "ticket" -d 'Mint a read ticket for a pad (shown once)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "revoke-ticket" -d 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "show" -d 'Show a pad\'s manifest: state, block count, bytes, head and times'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "read" -d 'Read blocks FROM..=TO of a pad with a read ticket'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "list" -d 'List pads with their state, blocks and head'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from util" -f -a "generate-docs" -d 'Write the man pages and completion scripts into `man/` and `completions/`'
