
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
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand init 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
            cand status 'Show the repository at a glance: journal, checkpoint, pads, leases, signing, store'
            cand pad 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
            cand append 'Append one block to a pad (same as `locker pad append`)'
            cand seal 'Seal a pad (same as `locker pad seal`)'
            cand deposit 'Create, fill and seal a pad in one atomic step'
            cand artifact 'Publish and read versioned artifacts (compare-and-swap, idempotent retries)'
            cand token 'Manage agent tokens: each acts as one agent in one scope (`LOCKER_TOKEN`)'
            cand key 'Show the log''s key; manage agent signing keys (Ed25519) and whether writes must be signed'
            cand lease 'Lease work items: exclusive, expiring, fenced locks with heartbeats and a reaper'
            cand manifest 'Commit, show and diff a work item''s plan (its manifest of steps)'
            cand step 'Log a step of a work item under its current lease: what was planned and executed'
            cand log 'Show the journal, newest first, like `git log`'
            cand verify 'Check the repository''s integrity, like `git fsck`, or one pad''s'
            cand checkpoint 'Print the log''s latest signed checkpoint'
            cand proof 'Prove journal entries included in, and checkpoints consistent with, the log'
            cand backup 'Copy the repository into a new directory, consistently, while others keep writing'
            cand restore 'Restore a backup made by `locker backup`, after verifying it'
            cand gc 'Remove what the retention policy allows: old pads'' payloads, abandoned work, unreferenced blobs'
            cand store 'Move the repository between stores (SQLite and PostgreSQL)'
            cand doctor 'Check the repository and its surroundings, and say what to do about each finding'
            cand review 'Review a handed-off pad against this git checkout, for CI'
            cand mcp 'Serve locker''s operations as MCP tools over stdio, for agents'
            cand skill 'Print a SKILL.md that teaches an agent to use locker from a shell'
            cand serve 'Serve the repository over HTTP until SIGTERM or SIGINT'
            cand quest 'Run the demo story with real processes: crashes, a stale retry, tampering, each checked'
            cand witness 'Run a witness: cosign the checkpoints of logs it follows, never two inconsistent ones'
            cand completions 'Print a shell completion script for SHELL to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;init'= {
            cand --store 'Keep the repository in this PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`, no password in it) instead of SQLite inside `.locker/`; several servers can share it. A database that already holds a repository is joined, not changed'
            cand --store-password-file 'The file whose first line is the database password (else `PGPASSWORD` or `~/.pgpass`); its path, never the password, is kept in `config.json`'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;status'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;pad'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand export 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)'
            cand import 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;pad;create'= {
            cand --ttl 'How long until the pad expires unless sealed, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds; default 1h)'
            cand --max-blocks 'Most blocks the pad may hold (1–4096)'
            cand --payment-proof 'With --remote: the hash of the payment a pay-per-pad server asked for (sent as `X-Payment-Proof`); without one, such a server''s challenge is an error (exit 5) naming what to pay'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand --sign-key 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad;show'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand --key 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it'
            cand --state 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)'
            cand --policy 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --raw 'Write the payloads'' exact bytes to stdout, one after another (not with --json)'
            cand --no-pin 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;pad;list'= {
            cand --state 'Only pads in this state'
            cand --limit 'Most pads to list'
            cand --after 'Only pads whose id sorts after ID: pass the last `pad_id` of one page to get the next'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;pad;export'= {
            cand -o 'Write the bundle to FILE, atomically (default: stdout)'
            cand --output 'Write the bundle to FILE, atomically (default: stdout)'
            cand --ticket 'A read ticket for the pad'
            cand --ticket-file 'Read the ticket from FILE (first line)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;pad;import'= {
            cand --expect-head 'Also require this head (64 hex characters), obtained independently of the file'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
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
            cand export 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)'
            cand import 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)'
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
        &'locker;pad;help;export'= {
        }
        &'locker;pad;help;import'= {
        }
        &'locker;pad;help;help'= {
        }
        &'locker;append'= {
            cand -d 'Use TEXT as the payload'
            cand --data 'Use TEXT as the payload'
            cand --content-type 'The block''s content type'
            cand --key 'The pad''s write key'
            cand --key-file 'Read the write key from FILE (first line)'
            cand --sign-key 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;deposit'= {
            cand --envelope 'The `locker.handoff.v1` envelope (`-` for stdin)'
            cand --artifact 'A file to add as one block after the envelope (repeatable, in order)'
            cand --ttl 'The pad''s TTL, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds), kept for compatibility: a deposited pad is sealed at once, and sealed pads do not expire'
            cand --payment-proof 'With --remote: the hash of the payment a pay-per-pad server asked for (sent as `X-Payment-Proof`); without one, such a server''s challenge is an error (exit 5) naming what to pay'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;artifact'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand publish 'Publish a new version of KEY, if its current version is still the one you read'
            cand get 'Print KEY''s current content, or that of one version'
            cand log 'Show every version of KEY, oldest first'
            cand list 'List the keys of your scope with their current versions'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;artifact;publish'= {
            cand -d 'Use TEXT as the content'
            cand --data 'Use TEXT as the content'
            cand --expect 'The version you read and are replacing: 0 to create the key'
            cand --op 'This operation''s id (1–128 bytes): reuse it only to retry the identical request'
            cand --fence 'Publish under the lease with fencing token TOKEN on work item WORK: refused with exit 4 (`stale_fence`) once a newer lease exists on WORK'
            cand --sign-key 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;artifact;get'= {
            cand --version 'Read this version instead of the current one'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;artifact;log'= {
            cand --after 'Only versions after V'
            cand -n 'Show at most N versions (1–10000)'
            cand --limit 'Show at most N versions (1–10000)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;artifact;list'= {
            cand --after 'Only keys that sort after KEY (for paging)'
            cand -n 'Show at most N keys (1–10000)'
            cand --limit 'Show at most N keys (1–10000)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;artifact;help'= {
            cand publish 'Publish a new version of KEY, if its current version is still the one you read'
            cand get 'Print KEY''s current content, or that of one version'
            cand log 'Show every version of KEY, oldest first'
            cand list 'List the keys of your scope with their current versions'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;artifact;help;publish'= {
        }
        &'locker;artifact;help;get'= {
        }
        &'locker;artifact;help;log'= {
        }
        &'locker;artifact;help;list'= {
        }
        &'locker;artifact;help;help'= {
        }
        &'locker;token'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Create an agent and print its bearer token (shown once)'
            cand revoke 'Revoke an agent''s token for good (revoking twice changes nothing)'
            cand list 'List agents with their scopes and states (never their tokens)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;token;create'= {
            cand --agent 'The agent''s name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;token;revoke'= {
            cand --agent 'The agent''s name'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand -y 'Revoke without asking (required when stdin or stderr is not a terminal)'
            cand --yes 'Revoke without asking (required when stdin or stderr is not a terminal)'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;token;list'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;token;help'= {
            cand create 'Create an agent and print its bearer token (shown once)'
            cand revoke 'Revoke an agent''s token for good (revoking twice changes nothing)'
            cand list 'List agents with their scopes and states (never their tokens)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;token;help;create'= {
        }
        &'locker;token;help;revoke'= {
        }
        &'locker;token;help;list'= {
        }
        &'locker;token;help;help'= {
        }
        &'locker;key'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand show 'Print the verifier key of the log''s checkpoints'
            cand new 'Make an agent''s Ed25519 key pair here, where the agent runs'
            cand register 'Register an agent''s verifier key: the agent its own, with its token'
            cand generate 'Create an Ed25519 key pair for an agent and register its public key (the operator''s way)'
            cand list 'List the registered agent keys, the repository id and the signing policy'
            cand revoke 'Revoke an agent''s signing key (revoking twice changes nothing)'
            cand require 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;key;show'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;key;new'= {
            cand --agent 'The agent the key signs for (default: `LOCKER_TOKEN`''s agent)'
            cand -o 'Write the private key to FILE (mode 0600; an existing file is never overwritten)'
            cand --out 'Write the private key to FILE (mode 0600; an existing file is never overwritten)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;key;register'= {
            cand --public-key 'The verifier key (`<agent>+<key id>+<base64>`, as `locker key new` prints it), or a file holding it'
            cand --rotate-with 'Rotate to the new key: sign the hand-over with the agent''s current private key, in FILE (it never leaves this machine; only its signature is sent)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;key;generate'= {
            cand --agent 'The agent''s name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`'
            cand --out 'Write the private key to FILE (mode 0600) instead of printing it'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;key;list'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;key;revoke'= {
            cand --agent 'The agent''s name'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand -y 'Revoke without asking (required when stdin or stderr is not a terminal)'
            cand --yes 'Revoke without asking (required when stdin or stderr is not a terminal)'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;key;require'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --off 'Stop requiring signatures'
            cand -y 'Change the policy without asking (required when stdin or stderr is not a terminal)'
            cand --yes 'Change the policy without asking (required when stdin or stderr is not a terminal)'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;key;help'= {
            cand show 'Print the verifier key of the log''s checkpoints'
            cand new 'Make an agent''s Ed25519 key pair here, where the agent runs'
            cand register 'Register an agent''s verifier key: the agent its own, with its token'
            cand generate 'Create an Ed25519 key pair for an agent and register its public key (the operator''s way)'
            cand list 'List the registered agent keys, the repository id and the signing policy'
            cand revoke 'Revoke an agent''s signing key (revoking twice changes nothing)'
            cand require 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;key;help;show'= {
        }
        &'locker;key;help;new'= {
        }
        &'locker;key;help;register'= {
        }
        &'locker;key;help;generate'= {
        }
        &'locker;key;help;list'= {
        }
        &'locker;key;help;revoke'= {
        }
        &'locker;key;help;require'= {
        }
        &'locker;key;help;help'= {
        }
        &'locker;lease'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand acquire 'Acquire an exclusive lease on a work item and print its id'
            cand heartbeat 'Extend a lease by its TTL from now, optionally with progress details'
            cand complete 'Complete a lease, keeping a result, and print the plan diff'
            cand release 'Release a lease without completing it, so the work item can be acquired again'
            cand show 'Show a work item''s newest lease: state, holder, fencing token, attempts, last heartbeat'
            cand list 'List leases (expired ones are reaped first), optionally only those in one state'
            cand reap 'Abandon every expired lease in the repository now'
            cand history 'Show every lease, plan, step and transition of a work item, with an integrity verdict'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;lease;acquire'= {
            cand --ttl 'How long until the lease expires unless heartbeaten, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds)'
            cand --holder 'Who holds the lease (operator only; default: `operator`)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --reopen 'Lease the work item even if it was completed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;lease;heartbeat'= {
            cand --lease 'The lease''s id (printed by `lease acquire`)'
            cand --details 'What the holder is doing, kept with the lease until the next heartbeat'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;lease;complete'= {
            cand --lease 'The lease''s id'
            cand --result 'The outcome to keep with the lease'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;lease;release'= {
            cand --lease 'The lease''s id'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;lease;show'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;lease;list'= {
            cand --state 'Only leases in this state'
            cand --limit 'Most leases to list (1–10000)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;lease;reap'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;lease;history'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;lease;help'= {
            cand acquire 'Acquire an exclusive lease on a work item and print its id'
            cand heartbeat 'Extend a lease by its TTL from now, optionally with progress details'
            cand complete 'Complete a lease, keeping a result, and print the plan diff'
            cand release 'Release a lease without completing it, so the work item can be acquired again'
            cand show 'Show a work item''s newest lease: state, holder, fencing token, attempts, last heartbeat'
            cand list 'List leases (expired ones are reaped first), optionally only those in one state'
            cand reap 'Abandon every expired lease in the repository now'
            cand history 'Show every lease, plan, step and transition of a work item, with an integrity verdict'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;lease;help;acquire'= {
        }
        &'locker;lease;help;heartbeat'= {
        }
        &'locker;lease;help;complete'= {
        }
        &'locker;lease;help;release'= {
        }
        &'locker;lease;help;show'= {
        }
        &'locker;lease;help;list'= {
        }
        &'locker;lease;help;reap'= {
        }
        &'locker;lease;help;history'= {
        }
        &'locker;lease;help;help'= {
        }
        &'locker;manifest'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand commit 'Commit a plan of steps under the work item''s current lease'
            cand show 'Show a work item''s newest plan, or one version of it'
            cand diff 'Compare the newest plan with the steps logged under the newest lease'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;manifest;commit'= {
            cand --file 'Read the steps from FILE, a JSON array of strings (`-` for stdin)'
            cand --lease 'The current lease''s id'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;manifest;show'= {
            cand --version 'Show this version instead of the newest'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;manifest;diff'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;manifest;help'= {
            cand commit 'Commit a plan of steps under the work item''s current lease'
            cand show 'Show a work item''s newest plan, or one version of it'
            cand diff 'Compare the newest plan with the steps logged under the newest lease'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;manifest;help;commit'= {
        }
        &'locker;manifest;help;show'= {
        }
        &'locker;manifest;help;diff'= {
        }
        &'locker;manifest;help;help'= {
        }
        &'locker;step'= {
            cand --lease 'The current lease''s id'
            cand --planned 'What was planned for this step'
            cand --executed 'What was executed'
            cand --gate 'Who resolved the step: agent, human, ci, … (a–z, 0–9, `-`, `_`)'
            cand --sign-key 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
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
            cand --since 'Only entries written at or after TIME: a duration ago (`2h`, `30d`), an RFC 3339 time or date (`2026-11-29T08:48:13Z`, `2026-11-29`), or Unix seconds (`@1796175870`)'
            cand --until 'Only entries written before TIME (as --since)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --reverse 'Oldest first'
            cand -f 'Keep running: after the newest entries (oldest first), show each new one as it is written, until interrupted'
            cand --follow 'Keep running: after the newest entries (oldest first), show each new one as it is written, until interrupted'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;verify'= {
            cand --bundle 'Verify this bundle file (`-` for stdin) instead of a repository'
            cand --expect-head 'Also require this head: the pad''s head with PAD or --bundle, else the journal''s head hash'
            cand --ticket 'A read ticket for the pad'
            cand --ticket-file 'Read the ticket from FILE (first line)'
            cand --proof 'Verify this proof file (from `locker proof`) with --key, with no repository'
            cand --key 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it'
            cand --state 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)'
            cand --policy 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)'
            cand --checkpoint 'Check this signed checkpoint (a note, as `locker checkpoint` prints it) against the witness policy alone: signed by the policy''s log key and cosigned by a quorum of its witnesses. `verify --policy FILE` with nothing else to verify checks the repository''s (or --remote''s) latest checkpoint the same way. Exit 1 when it falls short'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --require-signed 'Also require every pad append, artifact publish and step to carry a good agent signature: each unsigned one is a problem (exit 1)'
            cand --require-self-keys 'Also require every signature to come from a key its agent registered itself (with its own token, `locker key register`): each one by a key the operator registered is a problem (exit 1). The report says, per agent, which keys its signatures come from'
            cand --no-pin 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;checkpoint'= {
            cand --key 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it'
            cand --state 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)'
            cand --policy 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)'
            cand --witness 'Ask the witness at URL to cosign the checkpoint (C2SP tlog-witness), proving it consistent with what the witness cosigned before; its cosignature is added to the stored checkpoint. Repeatable. Exit 1 when a witness does not cosign'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --no-pin 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
            cand --accept-rollback 'Accept that the repository''s database lost entries the log key had signed (a backup restored on purpose): journal a `repo.rollback` entry naming the checkpoint given up, and sign the journal that ends with it, which becomes the log key''s new high-water mark. Readers pinned beyond the restored size will see a fork. Local only'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;proof'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand inclusion 'Prove a journal entry (or the entry that recorded a pad block) included in the log'
            cand consistency 'Prove the log''s checkpoint at OLD entries consistent with the one at NEW'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;proof;inclusion'= {
            cand --pad 'Prove the entry that recorded a block of this pad'
            cand --block 'The block''s sequence number in the pad (0 is the envelope)'
            cand -o 'Write the proof file to FILE instead of stdout'
            cand --output 'Write the proof file to FILE instead of stdout'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;proof;consistency'= {
            cand -o 'Write the proof file to FILE instead of stdout'
            cand --output 'Write the proof file to FILE instead of stdout'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;proof;help'= {
            cand inclusion 'Prove a journal entry (or the entry that recorded a pad block) included in the log'
            cand consistency 'Prove the log''s checkpoint at OLD entries consistent with the one at NEW'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;proof;help;inclusion'= {
        }
        &'locker;proof;help;consistency'= {
        }
        &'locker;proof;help;help'= {
        }
        &'locker;backup'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;restore'= {
            cand --to 'The directory to restore into (it will hold `.locker/`)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand -y 'Replace a repository that is already there without asking (required when stdin or stderr is not a terminal)'
            cand --yes 'Replace a repository that is already there without asking (required when stdin or stderr is not a terminal)'
            cand --accept-rollback 'Restore it even if it is older than checkpoints the replaced repository''s log key signed since (refused otherwise, exit 6): journals a `repo.rollback` entry naming the checkpoint given up, and signs the restored journal. Readers pinned beyond it will see a fork'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;gc'= {
            cand --pads-older-than 'Prune the payloads of pads sealed or expired at least AGE ago'
            cand --abandoned-older-than 'Prune the text of leases abandoned at least AGE ago, and of their plans and steps'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --dry-run 'Show what would be removed, and change nothing'
            cand -y 'Remove without asking (required when stdin or stderr is not a terminal)'
            cand --yes 'Remove without asking (required when stdin or stderr is not a terminal)'
            cand --blobs 'Remove unreferenced blobs and stray blob files'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;store'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand copy 'Copy the repository into another store, every chain and hash unchanged, and verify the copy'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;store;copy'= {
            cand --to 'The destination: an empty PostgreSQL database''s URL, or a new directory'
            cand --to-password-file 'The file whose first line is the destination database''s password'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;store;help'= {
            cand copy 'Copy the repository into another store, every chain and hash unchanged, and verify the copy'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;store;help;copy'= {
        }
        &'locker;store;help;help'= {
        }
        &'locker;doctor'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;review'= {
            cand --bundle 'Review this bundle file (`-` for stdin); needs no repository'
            cand --expect-head 'Require this head (64 hex characters), obtained from the pad''s writer'
            cand --range 'The changes to check against allowed_paths (default: the attested commit against its first parent)'
            cand -C 'The git checkout to review against (default: the current directory)'
            cand --checkout 'The git checkout to review against (default: the current directory)'
            cand --ticket 'A read ticket for the pad'
            cand --ticket-file 'Read the ticket from FILE (first line)'
            cand --key 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it'
            cand --state 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)'
            cand --policy 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --rerun 'Re-run the attested test command and compare its exit code'
            cand --strict 'Count skipped checks as failures'
            cand --require-self-keys 'Fail when a block is signed with a key the operator registered rather than its agent itself (the `self_keys` check; without it the report only says, per agent)'
            cand --no-pin 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;mcp'= {
            cand --sign-key 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;skill'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;serve'= {
            cand --listen 'The address and port to listen on'
            cand --header-timeout 'Seconds a client may take to send a request''s headers'
            cand --body-timeout 'Seconds a client may take to send a request''s body'
            cand --max-connections 'Most connections open at once'
            cand --require-token 'Demand an agent''s bearer token (`locker token create`) on every write route that has no credential of its own (leases, plans, steps, pad creation, deposit, reaping) and on the listings (`/v1/journal`, `/v1/verify`, `/v1/leases`, `/v1/pads`); without it they also serve anonymous callers, as the peers do. The default is false on loopback and true with `--allow-remote-http`; `--require-token=false` turns it off there'
            cand --allow-origin 'A web origin (`https://app.example.com`) whose pages may call this server (CORS); requests from any other origin are refused (403). None by default. Repeatable'
            cand --allow-host 'A host name clients may call this server by, besides loopback names and addresses and the listen address: any other `Host` is refused (421), which defeats DNS rebinding. Repeatable'
            cand --max-connections-per-peer 'Most connections one client address may hold open (others are answered 429)'
            cand --max-requests-per-peer 'Most requests one client address may have in flight, bodies still arriving included (others are answered 429)'
            cand --max-concurrent 'Most operations running at once (a request takes a slot once its body has arrived; others wait, then get 503)'
            cand --store 'Keep the repository in this PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`, no password in it) instead of SQLite inside `.locker/`; several servers can share it. A database that already holds a repository is joined, not changed'
            cand --store-password-file 'The file whose first line is the database password (else `PGPASSWORD` or `~/.pgpass`); its path, never the password, is kept in `config.json`'
            cand --witness 'Ask the witness at URL (a `locker witness serve` or any C2SP tlog-witness) to cosign every checkpoint `GET /v1/checkpoint` signs; the cosignatures are stored with it. Repeatable'
            cand --payment-mode 'Pay-per-pad: `txid` makes `POST /v1/pads` demand `X-Payment-Proof: <tx hash>` of a token transfer to the wallet, checked on chain (402 with a challenge without it); `off` (the default) shows nothing about payments; `locker serve --help` lists the `--payment-*` settings'
            cand --payment-wallet 'The wallet payments must go to (0x + 40 hex digits); required with `--payment-mode txid`'
            cand --payment-rpc-url 'The JSON-RPC endpoint that checks payments (every call times out after 5 seconds)'
            cand --payment-token 'The token contract payments are made in (default: USDC on Base)'
            cand --payment-amount 'The price of one pad in token units (USDC has 6 decimals: 2000 is 0.002 USDC)'
            cand --payment-confirmations 'Blocks a payment needs, its own included, before it counts'
            cand --payment-chain-id 'The chain id the RPC node must be on (8453 is Base)'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --allow-remote-http 'Allow an address other than loopback; locker speaks plain HTTP, so put a TLS proxy in front of it'
            cand --exit-with-stdin 'Stop (as on SIGTERM) when stdin reaches its end: for a parent that must not leave the server behind when it dies (`locker quest`)'
            cand --init 'Create the repository first if there is none (in `-R PATH`, else the current directory), as `locker init` would: for containers and services that start empty'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;quest'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --keep 'Keep the temporary directory (the repository, the workers'' files) and print its path'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;witness'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
            cand init 'Create a witness in DIR: its cosigning key and the logs it follows'
            cand serve 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT'
            cand show 'Show a witness''s state: its key, and per followed log the newest checkpoint it cosigned'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;witness;init'= {
            cand --name 'The witness''s name (a schema-less URL such as `witness.example.com/w1`)'
            cand --log 'Follow the log with this verifier key (as `locker key show` prints it); repeatable'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;witness;serve'= {
            cand --listen 'The address to listen on'
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --allow-remote-http 'Allow a non-loopback listen address (plain HTTP: put TLS in front)'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;witness;show'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'locker;witness;help'= {
            cand init 'Create a witness in DIR: its cosigning key and the logs it follows'
            cand serve 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT'
            cand show 'Show a witness''s state: its key, and per followed log the newest checkpoint it cosigned'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;witness;help;init'= {
        }
        &'locker;witness;help;serve'= {
        }
        &'locker;witness;help;show'= {
        }
        &'locker;witness;help;help'= {
        }
        &'locker;completions'= {
            cand -R 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --repo 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents'
            cand --remote 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)'
            cand --scope 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed'
            cand --json 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr'
            cand -q 'Print no status lines, only data'
            cand --quiet 'Print no status lines, only data'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'locker;help'= {
            cand init 'Create a locker repository (`.locker/`) in PATH, or report the one already there'
            cand status 'Show the repository at a glance: journal, checkpoint, pads, leases, signing, store'
            cand pad 'Work with handoff pads: hash-chained blocks, sealed and read with tickets'
            cand append 'Append one block to a pad (same as `locker pad append`)'
            cand seal 'Seal a pad (same as `locker pad seal`)'
            cand deposit 'Create, fill and seal a pad in one atomic step'
            cand artifact 'Publish and read versioned artifacts (compare-and-swap, idempotent retries)'
            cand token 'Manage agent tokens: each acts as one agent in one scope (`LOCKER_TOKEN`)'
            cand key 'Show the log''s key; manage agent signing keys (Ed25519) and whether writes must be signed'
            cand lease 'Lease work items: exclusive, expiring, fenced locks with heartbeats and a reaper'
            cand manifest 'Commit, show and diff a work item''s plan (its manifest of steps)'
            cand step 'Log a step of a work item under its current lease: what was planned and executed'
            cand log 'Show the journal, newest first, like `git log`'
            cand verify 'Check the repository''s integrity, like `git fsck`, or one pad''s'
            cand checkpoint 'Print the log''s latest signed checkpoint'
            cand proof 'Prove journal entries included in, and checkpoints consistent with, the log'
            cand backup 'Copy the repository into a new directory, consistently, while others keep writing'
            cand restore 'Restore a backup made by `locker backup`, after verifying it'
            cand gc 'Remove what the retention policy allows: old pads'' payloads, abandoned work, unreferenced blobs'
            cand store 'Move the repository between stores (SQLite and PostgreSQL)'
            cand doctor 'Check the repository and its surroundings, and say what to do about each finding'
            cand review 'Review a handed-off pad against this git checkout, for CI'
            cand mcp 'Serve locker''s operations as MCP tools over stdio, for agents'
            cand skill 'Print a SKILL.md that teaches an agent to use locker from a shell'
            cand serve 'Serve the repository over HTTP until SIGTERM or SIGINT'
            cand quest 'Run the demo story with real processes: crashes, a stale retry, tampering, each checked'
            cand witness 'Run a witness: cosign the checkpoints of logs it follows, never two inconsistent ones'
            cand completions 'Print a shell completion script for SHELL to stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'locker;help;init'= {
        }
        &'locker;help;status'= {
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
            cand export 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)'
            cand import 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)'
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
        &'locker;help;pad;export'= {
        }
        &'locker;help;pad;import'= {
        }
        &'locker;help;append'= {
        }
        &'locker;help;seal'= {
        }
        &'locker;help;deposit'= {
        }
        &'locker;help;artifact'= {
            cand publish 'Publish a new version of KEY, if its current version is still the one you read'
            cand get 'Print KEY''s current content, or that of one version'
            cand log 'Show every version of KEY, oldest first'
            cand list 'List the keys of your scope with their current versions'
        }
        &'locker;help;artifact;publish'= {
        }
        &'locker;help;artifact;get'= {
        }
        &'locker;help;artifact;log'= {
        }
        &'locker;help;artifact;list'= {
        }
        &'locker;help;token'= {
            cand create 'Create an agent and print its bearer token (shown once)'
            cand revoke 'Revoke an agent''s token for good (revoking twice changes nothing)'
            cand list 'List agents with their scopes and states (never their tokens)'
        }
        &'locker;help;token;create'= {
        }
        &'locker;help;token;revoke'= {
        }
        &'locker;help;token;list'= {
        }
        &'locker;help;key'= {
            cand show 'Print the verifier key of the log''s checkpoints'
            cand new 'Make an agent''s Ed25519 key pair here, where the agent runs'
            cand register 'Register an agent''s verifier key: the agent its own, with its token'
            cand generate 'Create an Ed25519 key pair for an agent and register its public key (the operator''s way)'
            cand list 'List the registered agent keys, the repository id and the signing policy'
            cand revoke 'Revoke an agent''s signing key (revoking twice changes nothing)'
            cand require 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)'
        }
        &'locker;help;key;show'= {
        }
        &'locker;help;key;new'= {
        }
        &'locker;help;key;register'= {
        }
        &'locker;help;key;generate'= {
        }
        &'locker;help;key;list'= {
        }
        &'locker;help;key;revoke'= {
        }
        &'locker;help;key;require'= {
        }
        &'locker;help;lease'= {
            cand acquire 'Acquire an exclusive lease on a work item and print its id'
            cand heartbeat 'Extend a lease by its TTL from now, optionally with progress details'
            cand complete 'Complete a lease, keeping a result, and print the plan diff'
            cand release 'Release a lease without completing it, so the work item can be acquired again'
            cand show 'Show a work item''s newest lease: state, holder, fencing token, attempts, last heartbeat'
            cand list 'List leases (expired ones are reaped first), optionally only those in one state'
            cand reap 'Abandon every expired lease in the repository now'
            cand history 'Show every lease, plan, step and transition of a work item, with an integrity verdict'
        }
        &'locker;help;lease;acquire'= {
        }
        &'locker;help;lease;heartbeat'= {
        }
        &'locker;help;lease;complete'= {
        }
        &'locker;help;lease;release'= {
        }
        &'locker;help;lease;show'= {
        }
        &'locker;help;lease;list'= {
        }
        &'locker;help;lease;reap'= {
        }
        &'locker;help;lease;history'= {
        }
        &'locker;help;manifest'= {
            cand commit 'Commit a plan of steps under the work item''s current lease'
            cand show 'Show a work item''s newest plan, or one version of it'
            cand diff 'Compare the newest plan with the steps logged under the newest lease'
        }
        &'locker;help;manifest;commit'= {
        }
        &'locker;help;manifest;show'= {
        }
        &'locker;help;manifest;diff'= {
        }
        &'locker;help;step'= {
        }
        &'locker;help;log'= {
        }
        &'locker;help;verify'= {
        }
        &'locker;help;checkpoint'= {
        }
        &'locker;help;proof'= {
            cand inclusion 'Prove a journal entry (or the entry that recorded a pad block) included in the log'
            cand consistency 'Prove the log''s checkpoint at OLD entries consistent with the one at NEW'
        }
        &'locker;help;proof;inclusion'= {
        }
        &'locker;help;proof;consistency'= {
        }
        &'locker;help;backup'= {
        }
        &'locker;help;restore'= {
        }
        &'locker;help;gc'= {
        }
        &'locker;help;store'= {
            cand copy 'Copy the repository into another store, every chain and hash unchanged, and verify the copy'
        }
        &'locker;help;store;copy'= {
        }
        &'locker;help;doctor'= {
        }
        &'locker;help;review'= {
        }
        &'locker;help;mcp'= {
        }
        &'locker;help;skill'= {
        }
        &'locker;help;serve'= {
        }
        &'locker;help;quest'= {
        }
        &'locker;help;witness'= {
            cand init 'Create a witness in DIR: its cosigning key and the logs it follows'
            cand serve 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT'
            cand show 'Show a witness''s state: its key, and per followed log the newest checkpoint it cosigned'
        }
        &'locker;help;witness;init'= {
        }
        &'locker;help;witness;serve'= {
        }
        &'locker;help;witness;show'= {
        }
        &'locker;help;completions'= {
        }
        &'locker;help;help'= {
        }
    ]
    $completions[$command]
}
