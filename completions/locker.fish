# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_locker_global_optspecs
    string join \n R/repo= json q/quiet remote= scope= h/help V/version
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
complete -c locker -n "__fish_locker_needs_command" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_needs_command" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_needs_command" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_needs_command" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_needs_command" -s V -l version -d 'Print version'
complete -c locker -n "__fish_locker_needs_command" -f -a "init" -d 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
complete -c locker -n "__fish_locker_needs_command" -f -a "status" -d 'Show the repository at a glance: journal, checkpoint, pads, leases, signing, store'
complete -c locker -n "__fish_locker_needs_command" -f -a "pad" -d 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
complete -c locker -n "__fish_locker_needs_command" -f -a "append" -d 'Append one block to a pad (same as `locker pad append`)'
complete -c locker -n "__fish_locker_needs_command" -f -a "seal" -d 'Seal a pad (same as `locker pad seal`)'
complete -c locker -n "__fish_locker_needs_command" -f -a "deposit" -d 'Create, fill and seal a pad in one atomic step'
complete -c locker -n "__fish_locker_needs_command" -f -a "artifact" -d 'Publish and read versioned artifacts (compare-and-swap, idempotent retries)'
complete -c locker -n "__fish_locker_needs_command" -f -a "token" -d 'Manage agent tokens: each acts as one agent in one scope (`LOCKER_TOKEN`)'
complete -c locker -n "__fish_locker_needs_command" -f -a "key" -d 'Show the log\'s key; manage agent signing keys (Ed25519) and whether writes must be signed'
complete -c locker -n "__fish_locker_needs_command" -f -a "lease" -d 'Lease work items: exclusive, expiring, fenced locks with heartbeats and a reaper'
complete -c locker -n "__fish_locker_needs_command" -f -a "manifest" -d 'Commit, show and diff a work item\'s plan (its manifest of steps)'
complete -c locker -n "__fish_locker_needs_command" -f -a "step" -d 'Log a step of a work item under its current lease: what was planned and executed'
complete -c locker -n "__fish_locker_needs_command" -f -a "log" -d 'Show the journal, newest first, like `git log`'
complete -c locker -n "__fish_locker_needs_command" -f -a "verify" -d 'Check the repository\'s integrity, like `git fsck`, or one pad\'s'
complete -c locker -n "__fish_locker_needs_command" -f -a "checkpoint" -d 'Print the log\'s latest signed checkpoint'
complete -c locker -n "__fish_locker_needs_command" -f -a "proof" -d 'Prove journal entries included in, and checkpoints consistent with, the log'
complete -c locker -n "__fish_locker_needs_command" -f -a "backup" -d 'Copy the repository into a new directory, consistently, while others keep writing'
complete -c locker -n "__fish_locker_needs_command" -f -a "restore" -d 'Restore a backup made by `locker backup`, after verifying it'
complete -c locker -n "__fish_locker_needs_command" -f -a "gc" -d 'Remove what the retention policy allows: old pads\' payloads, abandoned work, unreferenced blobs'
complete -c locker -n "__fish_locker_needs_command" -f -a "store" -d 'Move the repository between stores (SQLite and PostgreSQL)'
complete -c locker -n "__fish_locker_needs_command" -f -a "doctor" -d 'Check the repository and its surroundings, and say what to do about each finding'
complete -c locker -n "__fish_locker_needs_command" -f -a "review" -d 'Review a handed-off pad against this git checkout, for CI'
complete -c locker -n "__fish_locker_needs_command" -f -a "mcp" -d 'Serve locker\'s operations as MCP tools over stdio, for agents'
complete -c locker -n "__fish_locker_needs_command" -f -a "skill" -d 'Print a SKILL.md that teaches an agent to use locker from a shell'
complete -c locker -n "__fish_locker_needs_command" -f -a "serve" -d 'Serve the repository over HTTP until SIGTERM or SIGINT'
complete -c locker -n "__fish_locker_needs_command" -f -a "quest" -d 'Run the demo story with real processes: crashes, a stale retry, tampering, each checked'
complete -c locker -n "__fish_locker_needs_command" -f -a "witness" -d 'Run a witness: cosign the checkpoints of logs it follows, never two inconsistent ones'
complete -c locker -n "__fish_locker_needs_command" -f -a "completions" -d 'Print a shell completion script for SHELL to stdout'
complete -c locker -n "__fish_locker_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand init" -l store -d 'Keep the repository in this PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`, no password in it) instead of SQLite inside `.locker/`; several servers can share it. A database that already holds a repository is joined, not changed' -r
complete -c locker -n "__fish_locker_using_subcommand init" -l store-password-file -d 'The file whose first line is the database password (else `PGPASSWORD` or `~/.pgpass`); its path, never the password, is kept in `config.json`' -r -F
complete -c locker -n "__fish_locker_using_subcommand init" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand init" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand init" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand init" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand init" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand init" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand status" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand status" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand status" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand status" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand status" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "create" -d 'Create an empty pad and print its write key and read ticket (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "append" -d 'Append one block to a pad'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "seal" -d 'Seal a pad: no more appends; the stored chain is re-checked first'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "ticket" -d 'Mint a read ticket for a pad (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "revoke-ticket" -d 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "show" -d 'Show a pad\'s manifest: state, block count, bytes, head and times'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "read" -d 'Read blocks FROM..=TO of a pad with a read ticket'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "list" -d 'List pads with their state, blocks and head'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "export" -d 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "import" -d 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and not __fish_seen_subcommand_from create append seal ticket revoke-ticket show read list export import help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l ttl -d 'How long until the pad expires unless sealed, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds; default 1h)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l max-blocks -d 'Most blocks the pad may hold (1–4096)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l payment-proof -d 'With --remote: the hash of the payment a pay-per-pad server asked for (sent as `X-Payment-Proof`); without one, such a server\'s challenge is an error (exit 5) naming what to pay' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s d -l data -d 'Use TEXT as the payload' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l content-type -d 'The block\'s content type' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l sign-key -d 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from append" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from seal" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l type -d '`read_once` opens a read lease at its first read; `read_unlimited` reads until revoked' -r -f -a "read_once\t''
read_unlimited\t''"
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from ticket" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from revoke-ticket" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l from -d 'First block to read' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l to -d 'Last block to read (inclusive; default: the last block)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l ticket -d 'A read ticket for the pad' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l ticket-file -d 'Read the ticket from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l key -d 'The log\'s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l state -d 'Keep pinned checkpoints in DIR (default: the user\'s state directory, e.g. ~/.local/state/locker)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l policy -d 'Accept a checkpoint only when it carries this witness policy\'s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy\'s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader\'s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l raw -d 'Write the payloads\' exact bytes to stdout, one after another (not with --json)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l no-pin -d 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l state -d 'Only pads in this state' -r -f -a "open\t''
sealed\t''
expired\t''"
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l limit -d 'Most pads to list' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l after -d 'Only pads whose id sorts after ID: pass the last `pad_id` of one page to get the next' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -s o -l output -d 'Write the bundle to FILE, atomically (default: stdout)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -l ticket -d 'A read ticket for the pad' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -l ticket-file -d 'Read the ticket from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from import" -l expect-head -d 'Also require this head (64 hex characters), obtained independently of the file' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from import" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from import" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from import" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from import" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from import" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an empty pad and print its write key and read ticket (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "append" -d 'Append one block to a pad'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "seal" -d 'Seal a pad: no more appends; the stored chain is re-checked first'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "ticket" -d 'Mint a read ticket for a pad (shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "revoke-ticket" -d 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a pad\'s manifest: state, block count, bytes, head and times'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "read" -d 'Read blocks FROM..=TO of a pad with a read ticket'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "list" -d 'List pads with their state, blocks and head'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "export" -d 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "import" -d 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)'
complete -c locker -n "__fish_locker_using_subcommand pad; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand append" -s d -l data -d 'Use TEXT as the payload' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l content-type -d 'The block\'s content type' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand append" -l sign-key -d 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself' -r
complete -c locker -n "__fish_locker_using_subcommand append" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand append" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand append" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand append" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand append" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand seal" -l key -d 'The pad\'s write key' -r
complete -c locker -n "__fish_locker_using_subcommand seal" -l key-file -d 'Read the write key from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand seal" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand seal" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand seal" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand seal" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand seal" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand seal" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand deposit" -l envelope -d 'The `locker.handoff.v1` envelope (`-` for stdin)' -r -F
complete -c locker -n "__fish_locker_using_subcommand deposit" -l artifact -d 'A file to add as one block after the envelope (repeatable, in order)' -r -F
complete -c locker -n "__fish_locker_using_subcommand deposit" -l ttl -d 'The pad\'s TTL, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds), kept for compatibility: a deposited pad is sealed at once, and sealed pads do not expire' -r
complete -c locker -n "__fish_locker_using_subcommand deposit" -l payment-proof -d 'With --remote: the hash of the payment a pay-per-pad server asked for (sent as `X-Payment-Proof`); without one, such a server\'s challenge is an error (exit 5) naming what to pay' -r
complete -c locker -n "__fish_locker_using_subcommand deposit" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand deposit" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand deposit" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand deposit" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand deposit" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand deposit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -f -a "publish" -d 'Publish a new version of KEY, if its current version is still the one you read'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -f -a "get" -d 'Print KEY\'s current content, or that of one version'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -f -a "log" -d 'Show every version of KEY, oldest first'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -f -a "list" -d 'List the keys of your scope with their current versions'
complete -c locker -n "__fish_locker_using_subcommand artifact; and not __fish_seen_subcommand_from publish get log list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -s d -l data -d 'Use TEXT as the content' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -l expect -d 'The version you read and are replacing: 0 to create the key' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -l op -d 'This operation\'s id (1–128 bytes): reuse it only to retry the identical request' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -l fence -d 'Publish under the lease with fencing token TOKEN on work item WORK: refused with exit 4 (`stale_fence`) once a newer lease exists on WORK' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -l sign-key -d 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from publish" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from get" -l version -d 'Read this version instead of the current one' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from get" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from get" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from get" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from get" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from get" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -l after -d 'Only versions after V' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -s n -l limit -d 'Show at most N versions (1–10000)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -l after -d 'Only keys that sort after KEY (for paging)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -s n -l limit -d 'Show at most N keys (1–10000)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "publish" -d 'Publish a new version of KEY, if its current version is still the one you read'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "get" -d 'Print KEY\'s current content, or that of one version'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "log" -d 'Show every version of KEY, oldest first'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the keys of your scope with their current versions'
complete -c locker -n "__fish_locker_using_subcommand artifact; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -f -a "create" -d 'Create an agent and print its bearer token (shown once)'
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -f -a "revoke" -d 'Revoke an agent\'s token for good (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -f -a "list" -d 'List agents with their scopes and states (never their tokens)'
complete -c locker -n "__fish_locker_using_subcommand token; and not __fish_seen_subcommand_from create revoke list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from create" -l agent -d 'The agent\'s name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from create" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from create" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from create" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from create" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from create" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -l agent -d 'The agent\'s name' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -s y -l yes -d 'Revoke without asking (required when stdin or stderr is not a terminal)'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from list" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from list" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from list" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from list" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an agent and print its bearer token (shown once)'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke an agent\'s token for good (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "list" -d 'List agents with their scopes and states (never their tokens)'
complete -c locker -n "__fish_locker_using_subcommand token; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "show" -d 'Print the verifier key of the log\'s checkpoints'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "new" -d 'Make an agent\'s Ed25519 key pair here, where the agent runs'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "register" -d 'Register an agent\'s verifier key: the agent its own, with its token'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "generate" -d 'Create an Ed25519 key pair for an agent and register its public key (the operator\'s way)'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "list" -d 'List the registered agent keys, the repository id and the signing policy'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "revoke" -d 'Revoke an agent\'s signing key (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "require" -d 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)'
complete -c locker -n "__fish_locker_using_subcommand key; and not __fish_seen_subcommand_from show new register generate list revoke require help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from show" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from show" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from show" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from show" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -l agent -d 'The agent the key signs for (default: `LOCKER_TOKEN`\'s agent)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -s o -l out -d 'Write the private key to FILE (mode 0600; an existing file is never overwritten)' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from new" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -l public-key -d 'The verifier key (`<agent>+<key id>+<base64>`, as `locker key new` prints it), or a file holding it' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -l rotate-with -d 'Rotate to the new key: sign the hand-over with the agent\'s current private key, in FILE (it never leaves this machine; only its signature is sent)' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from register" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -l agent -d 'The agent\'s name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -l out -d 'Write the private key to FILE (mode 0600) instead of printing it' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from list" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from list" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from list" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from list" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -l agent -d 'The agent\'s name' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -s y -l yes -d 'Revoke without asking (required when stdin or stderr is not a terminal)'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -l off -d 'Stop requiring signatures'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -s y -l yes -d 'Change the policy without asking (required when stdin or stderr is not a terminal)'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from require" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the verifier key of the log\'s checkpoints'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "new" -d 'Make an agent\'s Ed25519 key pair here, where the agent runs'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "register" -d 'Register an agent\'s verifier key: the agent its own, with its token'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "generate" -d 'Create an Ed25519 key pair for an agent and register its public key (the operator\'s way)'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the registered agent keys, the repository id and the signing policy'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke an agent\'s signing key (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "require" -d 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)'
complete -c locker -n "__fish_locker_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "acquire" -d 'Acquire an exclusive lease on a work item and print its id'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "heartbeat" -d 'Extend a lease by its TTL from now, optionally with progress details'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "complete" -d 'Complete a lease, keeping a result, and print the plan diff'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "release" -d 'Release a lease without completing it, so the work item can be acquired again'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "show" -d 'Show a work item\'s newest lease: state, holder, fencing token, attempts, last heartbeat'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "list" -d 'List leases (expired ones are reaped first), optionally only those in one state'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "reap" -d 'Abandon every expired lease in the repository now'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "history" -d 'Show every lease, plan, step and transition of a work item, with an integrity verdict'
complete -c locker -n "__fish_locker_using_subcommand lease; and not __fish_seen_subcommand_from acquire heartbeat complete release show list reap history help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -l ttl -d 'How long until the lease expires unless heartbeaten, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -l holder -d 'Who holds the lease (operator only; default: `operator`)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -l reopen -d 'Lease the work item even if it was completed'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from acquire" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -l lease -d 'The lease\'s id (printed by `lease acquire`)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -l details -d 'What the holder is doing, kept with the lease until the next heartbeat' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from heartbeat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -l lease -d 'The lease\'s id' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -l result -d 'The outcome to keep with the lease' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from complete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from release" -l lease -d 'The lease\'s id' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from release" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from release" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from release" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from release" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from release" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from release" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from show" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from show" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from show" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from show" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -l state -d 'Only leases in this state' -r -f -a "active\t''
completed\t''
released\t''
abandoned\t''"
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -l limit -d 'Most leases to list (1–10000)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from reap" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from reap" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from reap" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from reap" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from reap" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from reap" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from history" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from history" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from history" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from history" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from history" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "acquire" -d 'Acquire an exclusive lease on a work item and print its id'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "heartbeat" -d 'Extend a lease by its TTL from now, optionally with progress details'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "complete" -d 'Complete a lease, keeping a result, and print the plan diff'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "release" -d 'Release a lease without completing it, so the work item can be acquired again'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a work item\'s newest lease: state, holder, fencing token, attempts, last heartbeat'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "list" -d 'List leases (expired ones are reaped first), optionally only those in one state'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "reap" -d 'Abandon every expired lease in the repository now'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "history" -d 'Show every lease, plan, step and transition of a work item, with an integrity verdict'
complete -c locker -n "__fish_locker_using_subcommand lease; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -f -a "commit" -d 'Commit a plan of steps under the work item\'s current lease'
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -f -a "show" -d 'Show a work item\'s newest plan, or one version of it'
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -f -a "diff" -d 'Compare the newest plan with the steps logged under the newest lease'
complete -c locker -n "__fish_locker_using_subcommand manifest; and not __fish_seen_subcommand_from commit show diff help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -l file -d 'Read the steps from FILE, a JSON array of strings (`-` for stdin)' -r -F
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -l lease -d 'The current lease\'s id' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from commit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from show" -l version -d 'Show this version instead of the newest' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from show" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from show" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from show" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from show" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from diff" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from diff" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from diff" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from diff" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from diff" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from help" -f -a "commit" -d 'Commit a plan of steps under the work item\'s current lease'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a work item\'s newest plan, or one version of it'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from help" -f -a "diff" -d 'Compare the newest plan with the steps logged under the newest lease'
complete -c locker -n "__fish_locker_using_subcommand manifest; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand step" -l lease -d 'The current lease\'s id' -r
complete -c locker -n "__fish_locker_using_subcommand step" -l planned -d 'What was planned for this step' -r
complete -c locker -n "__fish_locker_using_subcommand step" -l executed -d 'What was executed' -r
complete -c locker -n "__fish_locker_using_subcommand step" -l gate -d 'Who resolved the step: agent, human, ci, … (a–z, 0–9, `-`, `_`)' -r
complete -c locker -n "__fish_locker_using_subcommand step" -l sign-key -d 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself' -r
complete -c locker -n "__fish_locker_using_subcommand step" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand step" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand step" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand step" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand step" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand step" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand log" -l kind -d 'Only entries of this kind (`pad.append`), or of this family when it ends with `.` (`pad.`)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l subject -d 'Only entries about this subject (`pad:<id>`, `repo`)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l actor -d 'Only entries by this actor (`operator`, or an agent\'s name)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l scope -d 'Only entries in this scope' -r
complete -c locker -n "__fish_locker_using_subcommand log" -s n -l limit -d 'Show at most N entries (1–10000)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l after -d 'Only entries after sequence number SEQ' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l before -d 'Only entries before sequence number SEQ' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l since -d 'Only entries written at or after TIME: a duration ago (`2h`, `30d`), an RFC 3339 time or date (`2026-11-29T08:48:13Z`, `2026-11-29`), or Unix seconds (`@1796175870`)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l until -d 'Only entries written before TIME (as --since)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand log" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand log" -l reverse -d 'Oldest first'
complete -c locker -n "__fish_locker_using_subcommand log" -s f -l follow -d 'Keep running: after the newest entries (oldest first), show each new one as it is written, until interrupted'
complete -c locker -n "__fish_locker_using_subcommand log" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand log" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand verify" -l bundle -d 'Verify this bundle file (`-` for stdin) instead of a repository' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -l expect-head -d 'Also require this head: the pad\'s head with PAD or --bundle, else the journal\'s head hash' -r
complete -c locker -n "__fish_locker_using_subcommand verify" -l ticket -d 'A read ticket for the pad' -r
complete -c locker -n "__fish_locker_using_subcommand verify" -l ticket-file -d 'Read the ticket from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -l proof -d 'Verify this proof file (from `locker proof`) with --key, with no repository' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -l key -d 'The log\'s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it' -r
complete -c locker -n "__fish_locker_using_subcommand verify" -l state -d 'Keep pinned checkpoints in DIR (default: the user\'s state directory, e.g. ~/.local/state/locker)' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -l policy -d 'Accept a checkpoint only when it carries this witness policy\'s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy\'s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader\'s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -l checkpoint -d 'Check this signed checkpoint (a note, as `locker checkpoint` prints it) against the witness policy alone: signed by the policy\'s log key and cosigned by a quorum of its witnesses. `verify --policy FILE` with nothing else to verify checks the repository\'s (or --remote\'s) latest checkpoint the same way. Exit 1 when it falls short' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand verify" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand verify" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand verify" -l require-signed -d 'Also require every pad append, artifact publish and step to carry a good agent signature: each unsigned one is a problem (exit 1)'
complete -c locker -n "__fish_locker_using_subcommand verify" -l require-self-keys -d 'Also require every signature to come from a key its agent registered itself (with its own token, `locker key register`): each one by a key the operator registered is a problem (exit 1). The report says, per agent, which keys its signatures come from'
complete -c locker -n "__fish_locker_using_subcommand verify" -l no-pin -d 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
complete -c locker -n "__fish_locker_using_subcommand verify" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand verify" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l key -d 'The log\'s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it' -r
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l state -d 'Keep pinned checkpoints in DIR (default: the user\'s state directory, e.g. ~/.local/state/locker)' -r -F
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l policy -d 'Accept a checkpoint only when it carries this witness policy\'s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy\'s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader\'s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)' -r -F
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l witness -d 'Ask the witness at URL to cosign the checkpoint (C2SP tlog-witness), proving it consistent with what the witness cosigned before; its cosignature is added to the stored checkpoint. Repeatable. Exit 1 when a witness does not cosign' -r
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l no-pin -d 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l accept-rollback -d 'Accept that the repository\'s database lost entries the log key had signed (a backup restored on purpose): journal a `repo.rollback` entry naming the checkpoint given up, and sign the journal that ends with it, which becomes the log key\'s new high-water mark. Readers pinned beyond the restored size will see a fork. Local only'
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand checkpoint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -f -a "inclusion" -d 'Prove a journal entry (or the entry that recorded a pad block) included in the log'
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -f -a "consistency" -d 'Prove the log\'s checkpoint at OLD entries consistent with the one at NEW'
complete -c locker -n "__fish_locker_using_subcommand proof; and not __fish_seen_subcommand_from inclusion consistency help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -l pad -d 'Prove the entry that recorded a block of this pad' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -l block -d 'The block\'s sequence number in the pad (0 is the envelope)' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -s o -l output -d 'Write the proof file to FILE instead of stdout' -r -F
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from inclusion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from consistency" -s o -l output -d 'Write the proof file to FILE instead of stdout' -r -F
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from consistency" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from consistency" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from consistency" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from consistency" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from consistency" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from consistency" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from help" -f -a "inclusion" -d 'Prove a journal entry (or the entry that recorded a pad block) included in the log'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from help" -f -a "consistency" -d 'Prove the log\'s checkpoint at OLD entries consistent with the one at NEW'
complete -c locker -n "__fish_locker_using_subcommand proof; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand backup" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand backup" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand backup" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand backup" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand backup" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand backup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand restore" -l to -d 'The directory to restore into (it will hold `.locker/`)' -r -F
complete -c locker -n "__fish_locker_using_subcommand restore" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand restore" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand restore" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand restore" -s y -l yes -d 'Replace a repository that is already there without asking (required when stdin or stderr is not a terminal)'
complete -c locker -n "__fish_locker_using_subcommand restore" -l accept-rollback -d 'Restore it even if it is older than checkpoints the replaced repository\'s log key signed since (refused otherwise, exit 6): journals a `repo.rollback` entry naming the checkpoint given up, and signs the restored journal. Readers pinned beyond it will see a fork'
complete -c locker -n "__fish_locker_using_subcommand restore" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand restore" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand gc" -l pads-older-than -d 'Prune the payloads of pads sealed or expired at least AGE ago' -r
complete -c locker -n "__fish_locker_using_subcommand gc" -l abandoned-older-than -d 'Prune the text of leases abandoned at least AGE ago, and of their plans and steps' -r
complete -c locker -n "__fish_locker_using_subcommand gc" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand gc" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand gc" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand gc" -l dry-run -d 'Show what would be removed, and change nothing'
complete -c locker -n "__fish_locker_using_subcommand gc" -s y -l yes -d 'Remove without asking (required when stdin or stderr is not a terminal)'
complete -c locker -n "__fish_locker_using_subcommand gc" -l blobs -d 'Remove unreferenced blobs and stray blob files'
complete -c locker -n "__fish_locker_using_subcommand gc" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand gc" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand gc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -f -a "copy" -d 'Copy the repository into another store, every chain and hash unchanged, and verify the copy'
complete -c locker -n "__fish_locker_using_subcommand store; and not __fish_seen_subcommand_from copy help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -l to -d 'The destination: an empty PostgreSQL database\'s URL, or a new directory' -r
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -l to-password-file -d 'The file whose first line is the destination database\'s password' -r -F
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from copy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "copy" -d 'Copy the repository into another store, every chain and hash unchanged, and verify the copy'
complete -c locker -n "__fish_locker_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand doctor" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand doctor" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand doctor" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand doctor" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand doctor" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand review" -l bundle -d 'Review this bundle file (`-` for stdin); needs no repository' -r -F
complete -c locker -n "__fish_locker_using_subcommand review" -l expect-head -d 'Require this head (64 hex characters), obtained from the pad\'s writer' -r
complete -c locker -n "__fish_locker_using_subcommand review" -l range -d 'The changes to check against allowed_paths (default: the attested commit against its first parent)' -r
complete -c locker -n "__fish_locker_using_subcommand review" -s C -l checkout -d 'The git checkout to review against (default: the current directory)' -r -F
complete -c locker -n "__fish_locker_using_subcommand review" -l ticket -d 'A read ticket for the pad' -r
complete -c locker -n "__fish_locker_using_subcommand review" -l ticket-file -d 'Read the ticket from FILE (first line)' -r -F
complete -c locker -n "__fish_locker_using_subcommand review" -l key -d 'The log\'s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it' -r
complete -c locker -n "__fish_locker_using_subcommand review" -l state -d 'Keep pinned checkpoints in DIR (default: the user\'s state directory, e.g. ~/.local/state/locker)' -r -F
complete -c locker -n "__fish_locker_using_subcommand review" -l policy -d 'Accept a checkpoint only when it carries this witness policy\'s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy\'s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader\'s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)' -r -F
complete -c locker -n "__fish_locker_using_subcommand review" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand review" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand review" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand review" -l rerun -d 'Re-run the attested test command and compare its exit code'
complete -c locker -n "__fish_locker_using_subcommand review" -l strict -d 'Count skipped checks as failures'
complete -c locker -n "__fish_locker_using_subcommand review" -l require-self-keys -d 'Fail when a block is signed with a key the operator registered rather than its agent itself (the `self_keys` check; without it the report only says, per agent)'
complete -c locker -n "__fish_locker_using_subcommand review" -l no-pin -d 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
complete -c locker -n "__fish_locker_using_subcommand review" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand review" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand review" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand mcp" -l sign-key -d 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself' -r
complete -c locker -n "__fish_locker_using_subcommand mcp" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand mcp" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand mcp" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand mcp" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand mcp" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand skill" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand skill" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand skill" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand skill" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand skill" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand skill" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand serve" -l listen -d 'The address and port to listen on' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l header-timeout -d 'Seconds a client may take to send a request\'s headers' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l body-timeout -d 'Seconds a client may take to send a request\'s body' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l max-connections -d 'Most connections open at once' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l require-token -d 'Demand an agent\'s bearer token (`locker token create`) on every write route that has no credential of its own (leases, plans, steps, pad creation, deposit, reaping) and on the listings (`/v1/journal`, `/v1/verify`, `/v1/leases`, `/v1/pads`); without it they also serve anonymous callers, as the peers do. The default is false on loopback and true with `--allow-remote-http`; `--require-token=false` turns it off there' -r -f -a "true\t''
false\t''"
complete -c locker -n "__fish_locker_using_subcommand serve" -l allow-origin -d 'A web origin (`https://app.example.com`) whose pages may call this server (CORS); requests from any other origin are refused (403). None by default. Repeatable' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l allow-host -d 'A host name clients may call this server by, besides loopback names and addresses and the listen address: any other `Host` is refused (421), which defeats DNS rebinding. Repeatable' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l max-connections-per-peer -d 'Most connections one client address may hold open (others are answered 429)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l max-requests-per-peer -d 'Most requests one client address may have in flight, bodies still arriving included (others are answered 429)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l max-concurrent -d 'Most operations running at once (a request takes a slot once its body has arrived; others wait, then get 503)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l store -d 'Keep the repository in this PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`, no password in it) instead of SQLite inside `.locker/`; several servers can share it. A database that already holds a repository is joined, not changed' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l store-password-file -d 'The file whose first line is the database password (else `PGPASSWORD` or `~/.pgpass`); its path, never the password, is kept in `config.json`' -r -F
complete -c locker -n "__fish_locker_using_subcommand serve" -l witness -d 'Ask the witness at URL (a `locker witness serve` or any C2SP tlog-witness) to cosign every checkpoint `GET /v1/checkpoint` signs; the cosignatures are stored with it. Repeatable' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l payment-mode -d 'Pay-per-pad: `txid` makes `POST /v1/pads` demand `X-Payment-Proof: <tx hash>` of a token transfer to the wallet, checked on chain (402 with a challenge without it); `off` (the default) shows nothing about payments; `locker serve --help` lists the `--payment-*` settings' -r -f -a "off\t'Free pads, as without payments'
txid\t'Each pad needs the hash of an on-chain token transfer to the wallet'"
complete -c locker -n "__fish_locker_using_subcommand serve" -l payment-wallet -d 'The wallet payments must go to (0x + 40 hex digits); required with `--payment-mode txid`' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l payment-rpc-url -d 'The JSON-RPC endpoint that checks payments (every call times out after 5 seconds)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l payment-token -d 'The token contract payments are made in (default: USDC on Base)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l payment-amount -d 'The price of one pad in token units (USDC has 6 decimals: 2000 is 0.002 USDC)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l payment-confirmations -d 'Blocks a payment needs, its own included, before it counts' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l payment-chain-id -d 'The chain id the RPC node must be on (8453 is Base)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand serve" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand serve" -l allow-remote-http -d 'Allow an address other than loopback; locker speaks plain HTTP, so put a TLS proxy in front of it'
complete -c locker -n "__fish_locker_using_subcommand serve" -l exit-with-stdin -d 'Stop (as on SIGTERM) when stdin reaches its end: for a parent that must not leave the server behind when it dies (`locker quest`)'
complete -c locker -n "__fish_locker_using_subcommand serve" -l init -d 'Create the repository first if there is none (in `-R PATH`, else the current directory), as `locker init` would: for containers and services that start empty'
complete -c locker -n "__fish_locker_using_subcommand serve" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand serve" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand quest" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand quest" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand quest" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand quest" -l keep -d 'Keep the temporary directory (the repository, the workers\' files) and print its path'
complete -c locker -n "__fish_locker_using_subcommand quest" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand quest" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand quest" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -f -a "init" -d 'Create a witness in DIR: its cosigning key and the logs it follows'
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -f -a "serve" -d 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT'
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -f -a "show" -d 'Show a witness\'s state: its key, and per followed log the newest checkpoint it cosigned'
complete -c locker -n "__fish_locker_using_subcommand witness; and not __fish_seen_subcommand_from init serve show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -l name -d 'The witness\'s name (a schema-less URL such as `witness.example.com/w1`)' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -l log -d 'Follow the log with this verifier key (as `locker key show` prints it); repeatable' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -l listen -d 'The address to listen on' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -l allow-remote-http -d 'Allow a non-loopback listen address (plain HTTP: put TLS in front)'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from show" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from show" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from show" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from show" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from help" -f -a "init" -d 'Create a witness in DIR: its cosigning key and the logs it follows'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from help" -f -a "show" -d 'Show a witness\'s state: its key, and per followed log the newest checkpoint it cosigned'
complete -c locker -n "__fish_locker_using_subcommand witness; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand completions" -s R -l repo -d 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents' -r -F
complete -c locker -n "__fish_locker_using_subcommand completions" -l remote -d 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)' -r
complete -c locker -n "__fish_locker_using_subcommand completions" -l scope -d 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token\'s scope is the only one allowed' -r
complete -c locker -n "__fish_locker_using_subcommand completions" -l json -d 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
complete -c locker -n "__fish_locker_using_subcommand completions" -s q -l quiet -d 'Print no status lines, only data'
complete -c locker -n "__fish_locker_using_subcommand completions" -s h -l help -d 'Print help'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "init" -d 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "status" -d 'Show the repository at a glance: journal, checkpoint, pads, leases, signing, store'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "pad" -d 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "append" -d 'Append one block to a pad (same as `locker pad append`)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "seal" -d 'Seal a pad (same as `locker pad seal`)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "deposit" -d 'Create, fill and seal a pad in one atomic step'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "artifact" -d 'Publish and read versioned artifacts (compare-and-swap, idempotent retries)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "token" -d 'Manage agent tokens: each acts as one agent in one scope (`LOCKER_TOKEN`)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "key" -d 'Show the log\'s key; manage agent signing keys (Ed25519) and whether writes must be signed'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "lease" -d 'Lease work items: exclusive, expiring, fenced locks with heartbeats and a reaper'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "manifest" -d 'Commit, show and diff a work item\'s plan (its manifest of steps)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "step" -d 'Log a step of a work item under its current lease: what was planned and executed'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "log" -d 'Show the journal, newest first, like `git log`'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "verify" -d 'Check the repository\'s integrity, like `git fsck`, or one pad\'s'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "checkpoint" -d 'Print the log\'s latest signed checkpoint'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "proof" -d 'Prove journal entries included in, and checkpoints consistent with, the log'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "backup" -d 'Copy the repository into a new directory, consistently, while others keep writing'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "restore" -d 'Restore a backup made by `locker backup`, after verifying it'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "gc" -d 'Remove what the retention policy allows: old pads\' payloads, abandoned work, unreferenced blobs'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "store" -d 'Move the repository between stores (SQLite and PostgreSQL)'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "doctor" -d 'Check the repository and its surroundings, and say what to do about each finding'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "review" -d 'Review a handed-off pad against this git checkout, for CI'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "mcp" -d 'Serve locker\'s operations as MCP tools over stdio, for agents'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "skill" -d 'Print a SKILL.md that teaches an agent to use locker from a shell'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "serve" -d 'Serve the repository over HTTP until SIGTERM or SIGINT'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "quest" -d 'Run the demo story with real processes: crashes, a stale retry, tampering, each checked'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "witness" -d 'Run a witness: cosign the checkpoints of logs it follows, never two inconsistent ones'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "completions" -d 'Print a shell completion script for SHELL to stdout'
complete -c locker -n "__fish_locker_using_subcommand help; and not __fish_seen_subcommand_from init status pad append seal deposit artifact token key lease manifest step log verify checkpoint proof backup restore gc store doctor review mcp skill serve quest witness completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "create" -d 'Create an empty pad and print its write key and read ticket (shown once)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "append" -d 'Append one block to a pad'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "seal" -d 'Seal a pad: no more appends; the stored chain is re-checked first'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "ticket" -d 'Mint a read ticket for a pad (shown once)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "revoke-ticket" -d 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "show" -d 'Show a pad\'s manifest: state, block count, bytes, head and times'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "read" -d 'Read blocks FROM..=TO of a pad with a read ticket'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "list" -d 'List pads with their state, blocks and head'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "export" -d 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from pad" -f -a "import" -d 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "publish" -d 'Publish a new version of KEY, if its current version is still the one you read'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "get" -d 'Print KEY\'s current content, or that of one version'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "log" -d 'Show every version of KEY, oldest first'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from artifact" -f -a "list" -d 'List the keys of your scope with their current versions'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "create" -d 'Create an agent and print its bearer token (shown once)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "revoke" -d 'Revoke an agent\'s token for good (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from token" -f -a "list" -d 'List agents with their scopes and states (never their tokens)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "show" -d 'Print the verifier key of the log\'s checkpoints'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "new" -d 'Make an agent\'s Ed25519 key pair here, where the agent runs'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "register" -d 'Register an agent\'s verifier key: the agent its own, with its token'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "generate" -d 'Create an Ed25519 key pair for an agent and register its public key (the operator\'s way)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "list" -d 'List the registered agent keys, the repository id and the signing policy'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "revoke" -d 'Revoke an agent\'s signing key (revoking twice changes nothing)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "require" -d 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "acquire" -d 'Acquire an exclusive lease on a work item and print its id'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "heartbeat" -d 'Extend a lease by its TTL from now, optionally with progress details'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "complete" -d 'Complete a lease, keeping a result, and print the plan diff'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "release" -d 'Release a lease without completing it, so the work item can be acquired again'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "show" -d 'Show a work item\'s newest lease: state, holder, fencing token, attempts, last heartbeat'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "list" -d 'List leases (expired ones are reaped first), optionally only those in one state'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "reap" -d 'Abandon every expired lease in the repository now'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from lease" -f -a "history" -d 'Show every lease, plan, step and transition of a work item, with an integrity verdict'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from manifest" -f -a "commit" -d 'Commit a plan of steps under the work item\'s current lease'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from manifest" -f -a "show" -d 'Show a work item\'s newest plan, or one version of it'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from manifest" -f -a "diff" -d 'Compare the newest plan with the steps logged under the newest lease'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from proof" -f -a "inclusion" -d 'Prove a journal entry (or the entry that recorded a pad block) included in the log'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from proof" -f -a "consistency" -d 'Prove the log\'s checkpoint at OLD entries consistent with the one at NEW'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "copy" -d 'Copy the repository into another store, every chain and hash unchanged, and verify the copy'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from witness" -f -a "init" -d 'Create a witness in DIR: its cosigning key and the logs it follows'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from witness" -f -a "serve" -d 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT'
complete -c locker -n "__fish_locker_using_subcommand help; and __fish_seen_subcommand_from witness" -f -a "show" -d 'Show a witness\'s state: its key, and per followed log the newest checkpoint it cosigned'
