
use builtin;
use str;

set edit:completion:arg-completer[locker] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'locker'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'locker'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
            cand pad 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
            cand append 'Append one block to a pad (same as `locker pad append`)'
            cand seal 'Seal a pad (same as `locker pad seal`)'
            cand deposit 'Create, fill and seal a pad in one atomic step'
            cand log 'Show the journal, newest first, like `git log`'
            cand verify 'Check the repository''s integrity, like `git fsck`, or one pad''s'
            cand completions 'Print a shell completion script for SHELL to stdout'
            cand util 'Developer tools'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;init'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Create an empty pad and print its write key and read ticket (shown once)'
            cand append 'Append one block to a pad'
            cand seal 'Seal a pad: no more appends; the stored chain is re-checked first'
            cand ticket 'Mint a read ticket for a pad (shown once)'
            cand revoke-ticket 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
            cand show 'Show a pad''s manifest: state, block count, bytes, head and times'
            cand read 'Read blocks FROM..=TO of a pad with a read ticket'
            cand list 'List pads with their state, blocks and head'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;pad;create'= {
            cand --ttl 'Seconds until the pad expires unless sealed (1–2592000)'
            cand --max-blocks 'Most blocks the pad may hold (1–4096)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;pad;append'= {
            cand -d 'Use TEXT as the payload'
            cand --data 'Use TEXT as the payload'
            cand --content-type 'The block''s content type'
            cand --key 'The pad''s write key'
            cand --key-file 'Read the write key from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;pad;seal'= {
            cand --key 'The pad''s write key'
            cand --key-file 'Read the write key from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad;ticket'= {
            cand --type '`read_once` opens a read lease at its first read; `read_unlimited` reads until revoked'
            cand --key 'The pad''s write key'
            cand --key-file 'Read the write key from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad;revoke-ticket'= {
            cand --key 'The pad''s write key'
            cand --key-file 'Read the write key from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad;show'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad;read'= {
            cand --from 'First block to read'
            cand --to 'Last block to read (inclusive; default: the last block)'
            cand --ticket 'A read ticket for the pad'
            cand --ticket-file 'Read the ticket from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --raw 'Write the payloads'' exact bytes to stdout, one after another'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;pad;list'= {
            cand --state 'Only pads in this state'
            cand --limit 'Most pads to list'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad;help'= {
            cand create 'Create an empty pad and print its write key and read ticket (shown once)'
            cand append 'Append one block to a pad'
            cand seal 'Seal a pad: no more appends; the stored chain is re-checked first'
            cand ticket 'Mint a read ticket for a pad (shown once)'
            cand revoke-ticket 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
            cand show 'Show a pad''s manifest: state, block count, bytes, head and times'
            cand read 'Read blocks FROM..=TO of a pad with a read ticket'
            cand list 'List pads with their state, blocks and head'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;pad;help;create'= {
        }
        &'locker;pad;help;append'= {
        }
        &'locker;pad;help;seal'= {
        }
        &'locker;pad;help;ticket'= {
        }
        &'locker;pad;help;revoke-ticket'= {
        }
        &'locker;pad;help;show'= {
        }
        &'locker;pad;help;read'= {
        }
        &'locker;pad;help;list'= {
        }
        &'locker;pad;help;help'= {
        }
        &'locker;append'= {
            cand -d 'Use TEXT as the payload'
            cand --data 'Use TEXT as the payload'
            cand --content-type 'The block''s content type'
            cand --key 'The pad''s write key'
            cand --key-file 'Read the write key from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;seal'= {
            cand --key 'The pad''s write key'
            cand --key-file 'Read the write key from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;deposit'= {
            cand --envelope 'The `locker.handoff.v1` envelope (`-` for stdin)'
            cand --artifact 'A file to add as one block after the envelope (repeatable, in order)'
            cand --ttl 'The pad''s TTL in seconds (1–2592000), kept for compatibility: a deposited pad is sealed at once, and sealed pads do not expire'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;log'= {
            cand --kind 'Only entries of this kind (`pad.append`), or of this family when it ends with `.` (`pad.`)'
            cand --subject 'Only entries about this subject (`pad:<id>`, `repo`)'
            cand --actor 'Only entries by this actor (`operator`, or an agent''s name)'
            cand --scope 'Only entries in this scope'
            cand -n 'Show at most N entries (1–10000)'
            cand --limit 'Show at most N entries (1–10000)'
            cand --after 'Only entries after sequence number SEQ'
            cand --before 'Only entries before sequence number SEQ'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --reverse 'Oldest first'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;verify'= {
            cand --expect-head 'Also require this head: the pad''s head with PAD, else the journal''s head hash'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;completions'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;util'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand generate-docs 'Write the man pages and completion scripts into `man/` and `completions/`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;util;generate-docs'= {
            cand --out-dir 'The directory holding `man/` and `completions/`'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;util;help'= {
            cand generate-docs 'Write the man pages and completion scripts into `man/` and `completions/`'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;util;help;generate-docs'= {
        }
        &'locker;util;help;help'= {
        }
        &'locker;help'= {
            cand init 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
            cand pad 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
            cand append 'Append one block to a pad (same as `locker pad append`)'
            cand seal 'Seal a pad (same as `locker pad seal`)'
            cand deposit 'Create, fill and seal a pad in one atomic step'
            cand log 'Show the journal, newest first, like `git log`'
            cand verify 'Check the repository''s integrity, like `git fsck`, or one pad''s'
            cand completions 'Print a shell completion script for SHELL to stdout'
            cand util 'Developer tools'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;help;init'= {
        }
        &'locker;help;pad'= {
            cand create 'Create an empty pad and print its write key and read ticket (shown once)'
            cand append 'Append one block to a pad'
            cand seal 'Seal a pad: no more appends; the stored chain is re-checked first'
            cand ticket 'Mint a read ticket for a pad (shown once)'
            cand revoke-ticket 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
            cand show 'Show a pad''s manifest: state, block count, bytes, head and times'
            cand read 'Read blocks FROM..=TO of a pad with a read ticket'
            cand list 'List pads with their state, blocks and head'
        }
        &'locker;help;pad;create'= {
        }
        &'locker;help;pad;append'= {
        }
        &'locker;help;pad;seal'= {
        }
        &'locker;help;pad;ticket'= {
        }
        &'locker;help;pad;revoke-ticket'= {
        }
        &'locker;help;pad;show'= {
        }
        &'locker;help;pad;read'= {
        }
        &'locker;help;pad;list'= {
        }
        &'locker;help;append'= {
        }
        &'locker;help;seal'= {
        }
        &'locker;help;deposit'= {
        }
        &'locker;help;log'= {
        }
        &'locker;help;verify'= {
        }
        &'locker;help;completions'= {
        }
        &'locker;help;util'= {
            cand generate-docs 'Write the man pages and completion scripts into `man/` and `completions/`'
        }
        &'locker;help;util;generate-docs'= {
        }
        &'locker;help;help'= {
        }
    ]
    $completions[$command]
}
