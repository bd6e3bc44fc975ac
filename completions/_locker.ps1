
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'locker' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'locker'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'locker' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a locker repository (`.locker/`) in PATH, or report the one already there')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the repository at a glance: journal, checkpoint, pads, leases, signing, store')
            [CompletionResult]::new('pad', 'pad', [CompletionResultType]::ParameterValue, 'Work with handoff pads: hash-chained blocks, sealed and read with tickets')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Append one block to a pad (same as `locker pad append`)')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a pad (same as `locker pad seal`)')
            [CompletionResult]::new('deposit', 'deposit', [CompletionResultType]::ParameterValue, 'Create, fill and seal a pad in one atomic step')
            [CompletionResult]::new('artifact', 'artifact', [CompletionResultType]::ParameterValue, 'Publish and read versioned artifacts (compare-and-swap, idempotent retries)')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'Manage agent tokens: each acts as one agent in one scope (`LOCKER_TOKEN`)')
            [CompletionResult]::new('key', 'key', [CompletionResultType]::ParameterValue, 'Show the log''s key; manage agent signing keys (Ed25519) and whether writes must be signed')
            [CompletionResult]::new('lease', 'lease', [CompletionResultType]::ParameterValue, 'Lease work items: exclusive, expiring, fenced locks with heartbeats and a reaper')
            [CompletionResult]::new('manifest', 'manifest', [CompletionResultType]::ParameterValue, 'Commit, show and diff a work item''s plan (its manifest of steps)')
            [CompletionResult]::new('step', 'step', [CompletionResultType]::ParameterValue, 'Log a step of a work item under its current lease: what was planned and executed')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the journal, newest first, like `git log`')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the repository''s integrity, like `git fsck`, or one pad''s')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Print the log''s latest signed checkpoint')
            [CompletionResult]::new('proof', 'proof', [CompletionResultType]::ParameterValue, 'Prove journal entries included in, and checkpoints consistent with, the log')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Copy the repository into a new directory, consistently, while others keep writing')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Restore a backup made by `locker backup`, after verifying it')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Remove what the retention policy allows: old pads'' payloads, abandoned work, unreferenced blobs')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'Move the repository between stores (SQLite and PostgreSQL)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the repository and its surroundings, and say what to do about each finding')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Review a handed-off pad against this git checkout, for CI')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve locker''s operations as MCP tools over stdio, for agents')
            [CompletionResult]::new('skill', 'skill', [CompletionResultType]::ParameterValue, 'Print a SKILL.md that teaches an agent to use locker from a shell')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the repository over HTTP until SIGTERM or SIGINT')
            [CompletionResult]::new('quest', 'quest', [CompletionResultType]::ParameterValue, 'Run the demo story with real processes: crashes, a stale retry, tampering, each checked')
            [CompletionResult]::new('witness', 'witness', [CompletionResultType]::ParameterValue, 'Run a witness: cosign the checkpoints of logs it follows, never two inconsistent ones')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script for SHELL to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;init' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep the repository in this PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`, no password in it) instead of SQLite inside `.locker/`; several servers can share it. A database that already holds a repository is joined, not changed')
            [CompletionResult]::new('--store-password-file', '--store-password-file', [CompletionResultType]::ParameterName, 'The file whose first line is the database password (else `PGPASSWORD` or `~/.pgpass`); its path, never the password, is kept in `config.json`')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;status' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;pad' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an empty pad and print its write key and read ticket (shown once)')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Append one block to a pad')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a pad: no more appends; the stored chain is re-checked first')
            [CompletionResult]::new('ticket', 'ticket', [CompletionResultType]::ParameterValue, 'Mint a read ticket for a pad (shown once)')
            [CompletionResult]::new('revoke-ticket', 'revoke-ticket', [CompletionResultType]::ParameterValue, 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a pad''s manifest: state, block count, bytes, head and times')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read blocks FROM..=TO of a pad with a read ticket')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List pads with their state, blocks and head')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;pad;create' {
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long until the pad expires unless sealed, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds; default 1h)')
            [CompletionResult]::new('--max-blocks', '--max-blocks', [CompletionResultType]::ParameterName, 'Most blocks the pad may hold (1–4096)')
            [CompletionResult]::new('--payment-proof', '--payment-proof', [CompletionResultType]::ParameterName, 'With --remote: the hash of the payment a pay-per-pad server asked for (sent as `X-Payment-Proof`); without one, such a server''s challenge is an error (exit 5) naming what to pay')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;pad;append' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Use TEXT as the payload')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'Use TEXT as the payload')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The block''s content type')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The pad''s write key')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the write key from FILE (first line)')
            [CompletionResult]::new('--sign-key', '--sign-key', [CompletionResultType]::ParameterName, 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;pad;seal' {
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The pad''s write key')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the write key from FILE (first line)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;pad;ticket' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, '`read_once` opens a read lease at its first read; `read_unlimited` reads until revoked')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The pad''s write key')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the write key from FILE (first line)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;pad;revoke-ticket' {
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The pad''s write key')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the write key from FILE (first line)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;pad;show' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;pad;read' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'First block to read')
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Last block to read (inclusive; default: the last block)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'A read ticket for the pad')
            [CompletionResult]::new('--ticket-file', '--ticket-file', [CompletionResultType]::ParameterName, 'Read the ticket from FILE (first line)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Write the payloads'' exact bytes to stdout, one after another (not with --json)')
            [CompletionResult]::new('--no-pin', '--no-pin', [CompletionResultType]::ParameterName, 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;pad;list' {
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only pads in this state')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Most pads to list')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only pads whose id sorts after ID: pass the last `pad_id` of one page to get the next')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;pad;export' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the bundle to FILE, atomically (default: stdout)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the bundle to FILE, atomically (default: stdout)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'A read ticket for the pad')
            [CompletionResult]::new('--ticket-file', '--ticket-file', [CompletionResultType]::ParameterName, 'Read the ticket from FILE (first line)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;pad;import' {
            [CompletionResult]::new('--expect-head', '--expect-head', [CompletionResultType]::ParameterName, 'Also require this head (64 hex characters), obtained independently of the file')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;pad;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an empty pad and print its write key and read ticket (shown once)')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Append one block to a pad')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a pad: no more appends; the stored chain is re-checked first')
            [CompletionResult]::new('ticket', 'ticket', [CompletionResultType]::ParameterValue, 'Mint a read ticket for a pad (shown once)')
            [CompletionResult]::new('revoke-ticket', 'revoke-ticket', [CompletionResultType]::ParameterValue, 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a pad''s manifest: state, block count, bytes, head and times')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read blocks FROM..=TO of a pad with a read ticket')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List pads with their state, blocks and head')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;pad;help;create' {
            break
        }
        'locker;pad;help;append' {
            break
        }
        'locker;pad;help;seal' {
            break
        }
        'locker;pad;help;ticket' {
            break
        }
        'locker;pad;help;revoke-ticket' {
            break
        }
        'locker;pad;help;show' {
            break
        }
        'locker;pad;help;read' {
            break
        }
        'locker;pad;help;list' {
            break
        }
        'locker;pad;help;export' {
            break
        }
        'locker;pad;help;import' {
            break
        }
        'locker;pad;help;help' {
            break
        }
        'locker;append' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Use TEXT as the payload')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'Use TEXT as the payload')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The block''s content type')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The pad''s write key')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the write key from FILE (first line)')
            [CompletionResult]::new('--sign-key', '--sign-key', [CompletionResultType]::ParameterName, 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;seal' {
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The pad''s write key')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the write key from FILE (first line)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;deposit' {
            [CompletionResult]::new('--envelope', '--envelope', [CompletionResultType]::ParameterName, 'The `locker.handoff.v1` envelope (`-` for stdin)')
            [CompletionResult]::new('--artifact', '--artifact', [CompletionResultType]::ParameterName, 'A file to add as one block after the envelope (repeatable, in order)')
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'The pad''s TTL, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds), kept for compatibility: a deposited pad is sealed at once, and sealed pads do not expire')
            [CompletionResult]::new('--payment-proof', '--payment-proof', [CompletionResultType]::ParameterName, 'With --remote: the hash of the payment a pay-per-pad server asked for (sent as `X-Payment-Proof`); without one, such a server''s challenge is an error (exit 5) naming what to pay')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;artifact' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish a new version of KEY, if its current version is still the one you read')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print KEY''s current content, or that of one version')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show every version of KEY, oldest first')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the keys of your scope with their current versions')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;artifact;publish' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Use TEXT as the content')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'Use TEXT as the content')
            [CompletionResult]::new('--expect', '--expect', [CompletionResultType]::ParameterName, 'The version you read and are replacing: 0 to create the key')
            [CompletionResult]::new('--op', '--op', [CompletionResultType]::ParameterName, 'This operation''s id (1–128 bytes): reuse it only to retry the identical request')
            [CompletionResult]::new('--fence', '--fence', [CompletionResultType]::ParameterName, 'Publish under the lease with fencing token TOKEN on work item WORK: refused with exit 4 (`stale_fence`) once a newer lease exists on WORK')
            [CompletionResult]::new('--sign-key', '--sign-key', [CompletionResultType]::ParameterName, 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;artifact;get' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Read this version instead of the current one')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;artifact;log' {
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only versions after V')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N versions (1–10000)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N versions (1–10000)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;artifact;list' {
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only keys that sort after KEY (for paging)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N keys (1–10000)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N keys (1–10000)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;artifact;help' {
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish a new version of KEY, if its current version is still the one you read')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print KEY''s current content, or that of one version')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show every version of KEY, oldest first')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the keys of your scope with their current versions')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;artifact;help;publish' {
            break
        }
        'locker;artifact;help;get' {
            break
        }
        'locker;artifact;help;log' {
            break
        }
        'locker;artifact;help;list' {
            break
        }
        'locker;artifact;help;help' {
            break
        }
        'locker;token' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an agent and print its bearer token (shown once)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an agent''s token for good (revoking twice changes nothing)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List agents with their scopes and states (never their tokens)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;token;create' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent''s name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;token;revoke' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent''s name')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Revoke without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Revoke without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;token;list' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;token;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an agent and print its bearer token (shown once)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an agent''s token for good (revoking twice changes nothing)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List agents with their scopes and states (never their tokens)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;token;help;create' {
            break
        }
        'locker;token;help;revoke' {
            break
        }
        'locker;token;help;list' {
            break
        }
        'locker;token;help;help' {
            break
        }
        'locker;key' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the verifier key of the log''s checkpoints')
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Make an agent''s Ed25519 key pair here, where the agent runs')
            [CompletionResult]::new('register', 'register', [CompletionResultType]::ParameterValue, 'Register an agent''s verifier key: the agent its own, with its token')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Create an Ed25519 key pair for an agent and register its public key (the operator''s way)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the registered agent keys, the repository id and the signing policy')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an agent''s signing key (revoking twice changes nothing)')
            [CompletionResult]::new('require', 'require', [CompletionResultType]::ParameterValue, 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;key;show' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;key;new' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent the key signs for (default: `LOCKER_TOKEN`''s agent)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the private key to FILE (mode 0600; an existing file is never overwritten)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write the private key to FILE (mode 0600; an existing file is never overwritten)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;key;register' {
            [CompletionResult]::new('--public-key', '--public-key', [CompletionResultType]::ParameterName, 'The verifier key (`<agent>+<key id>+<base64>`, as `locker key new` prints it), or a file holding it')
            [CompletionResult]::new('--rotate-with', '--rotate-with', [CompletionResultType]::ParameterName, 'Rotate to the new key: sign the hand-over with the agent''s current private key, in FILE (it never leaves this machine; only its signature is sent)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;key;generate' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent''s name: 1–64 characters from A–Z, a–z, 0–9, `.`, `_`, `-`')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Write the private key to FILE (mode 0600) instead of printing it')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;key;list' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;key;revoke' {
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'The agent''s name')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Revoke without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Revoke without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;key;require' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--off', '--off', [CompletionResultType]::ParameterName, 'Stop requiring signatures')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Change the policy without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Change the policy without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;key;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the verifier key of the log''s checkpoints')
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Make an agent''s Ed25519 key pair here, where the agent runs')
            [CompletionResult]::new('register', 'register', [CompletionResultType]::ParameterValue, 'Register an agent''s verifier key: the agent its own, with its token')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Create an Ed25519 key pair for an agent and register its public key (the operator''s way)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the registered agent keys, the repository id and the signing policy')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an agent''s signing key (revoking twice changes nothing)')
            [CompletionResult]::new('require', 'require', [CompletionResultType]::ParameterValue, 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;key;help;show' {
            break
        }
        'locker;key;help;new' {
            break
        }
        'locker;key;help;register' {
            break
        }
        'locker;key;help;generate' {
            break
        }
        'locker;key;help;list' {
            break
        }
        'locker;key;help;revoke' {
            break
        }
        'locker;key;help;require' {
            break
        }
        'locker;key;help;help' {
            break
        }
        'locker;lease' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('acquire', 'acquire', [CompletionResultType]::ParameterValue, 'Acquire an exclusive lease on a work item and print its id')
            [CompletionResult]::new('heartbeat', 'heartbeat', [CompletionResultType]::ParameterValue, 'Extend a lease by its TTL from now, optionally with progress details')
            [CompletionResult]::new('complete', 'complete', [CompletionResultType]::ParameterValue, 'Complete a lease, keeping a result, and print the plan diff')
            [CompletionResult]::new('release', 'release', [CompletionResultType]::ParameterValue, 'Release a lease without completing it, so the work item can be acquired again')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a work item''s newest lease: state, holder, fencing token, attempts, last heartbeat')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List leases (expired ones are reaped first), optionally only those in one state')
            [CompletionResult]::new('reap', 'reap', [CompletionResultType]::ParameterValue, 'Abandon every expired lease in the repository now')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show every lease, plan, step and transition of a work item, with an integrity verdict')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;lease;acquire' {
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'How long until the lease expires unless heartbeaten, from 1s to 30d (`90s`, `45m`, `12h`, `30d`, or plain seconds)')
            [CompletionResult]::new('--holder', '--holder', [CompletionResultType]::ParameterName, 'Who holds the lease (operator only; default: `operator`)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--reopen', '--reopen', [CompletionResultType]::ParameterName, 'Lease the work item even if it was completed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;lease;heartbeat' {
            [CompletionResult]::new('--lease', '--lease', [CompletionResultType]::ParameterName, 'The lease''s id (printed by `lease acquire`)')
            [CompletionResult]::new('--details', '--details', [CompletionResultType]::ParameterName, 'What the holder is doing, kept with the lease until the next heartbeat')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;lease;complete' {
            [CompletionResult]::new('--lease', '--lease', [CompletionResultType]::ParameterName, 'The lease''s id')
            [CompletionResult]::new('--result', '--result', [CompletionResultType]::ParameterName, 'The outcome to keep with the lease')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;lease;release' {
            [CompletionResult]::new('--lease', '--lease', [CompletionResultType]::ParameterName, 'The lease''s id')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;lease;show' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;lease;list' {
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Only leases in this state')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Most leases to list (1–10000)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;lease;reap' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;lease;history' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;lease;help' {
            [CompletionResult]::new('acquire', 'acquire', [CompletionResultType]::ParameterValue, 'Acquire an exclusive lease on a work item and print its id')
            [CompletionResult]::new('heartbeat', 'heartbeat', [CompletionResultType]::ParameterValue, 'Extend a lease by its TTL from now, optionally with progress details')
            [CompletionResult]::new('complete', 'complete', [CompletionResultType]::ParameterValue, 'Complete a lease, keeping a result, and print the plan diff')
            [CompletionResult]::new('release', 'release', [CompletionResultType]::ParameterValue, 'Release a lease without completing it, so the work item can be acquired again')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a work item''s newest lease: state, holder, fencing token, attempts, last heartbeat')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List leases (expired ones are reaped first), optionally only those in one state')
            [CompletionResult]::new('reap', 'reap', [CompletionResultType]::ParameterValue, 'Abandon every expired lease in the repository now')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show every lease, plan, step and transition of a work item, with an integrity verdict')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;lease;help;acquire' {
            break
        }
        'locker;lease;help;heartbeat' {
            break
        }
        'locker;lease;help;complete' {
            break
        }
        'locker;lease;help;release' {
            break
        }
        'locker;lease;help;show' {
            break
        }
        'locker;lease;help;list' {
            break
        }
        'locker;lease;help;reap' {
            break
        }
        'locker;lease;help;history' {
            break
        }
        'locker;lease;help;help' {
            break
        }
        'locker;manifest' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('commit', 'commit', [CompletionResultType]::ParameterValue, 'Commit a plan of steps under the work item''s current lease')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a work item''s newest plan, or one version of it')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare the newest plan with the steps logged under the newest lease')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;manifest;commit' {
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the steps from FILE, a JSON array of strings (`-` for stdin)')
            [CompletionResult]::new('--lease', '--lease', [CompletionResultType]::ParameterName, 'The current lease''s id')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;manifest;show' {
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Show this version instead of the newest')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;manifest;diff' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;manifest;help' {
            [CompletionResult]::new('commit', 'commit', [CompletionResultType]::ParameterValue, 'Commit a plan of steps under the work item''s current lease')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a work item''s newest plan, or one version of it')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare the newest plan with the steps logged under the newest lease')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;manifest;help;commit' {
            break
        }
        'locker;manifest;help;show' {
            break
        }
        'locker;manifest;help;diff' {
            break
        }
        'locker;manifest;help;help' {
            break
        }
        'locker;step' {
            [CompletionResult]::new('--lease', '--lease', [CompletionResultType]::ParameterName, 'The current lease''s id')
            [CompletionResult]::new('--planned', '--planned', [CompletionResultType]::ParameterName, 'What was planned for this step')
            [CompletionResult]::new('--executed', '--executed', [CompletionResultType]::ParameterName, 'What was executed')
            [CompletionResult]::new('--gate', '--gate', [CompletionResultType]::ParameterName, 'Who resolved the step: agent, human, ci, … (a–z, 0–9, `-`, `_`)')
            [CompletionResult]::new('--sign-key', '--sign-key', [CompletionResultType]::ParameterName, 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;log' {
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only entries of this kind (`pad.append`), or of this family when it ends with `.` (`pad.`)')
            [CompletionResult]::new('--subject', '--subject', [CompletionResultType]::ParameterName, 'Only entries about this subject (`pad:<id>`, `repo`)')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Only entries by this actor (`operator`, or an agent''s name)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Only entries in this scope')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N entries (1–10000)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N entries (1–10000)')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Only entries after sequence number SEQ')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'Only entries before sequence number SEQ')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only entries written at or after TIME: a duration ago (`2h`, `30d`), an RFC 3339 time or date (`2026-11-29T08:48:13Z`, `2026-11-29`), or Unix seconds (`@1796175870`)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only entries written before TIME (as --since)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Oldest first')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep running: after the newest entries (oldest first), show each new one as it is written, until interrupted')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep running: after the newest entries (oldest first), show each new one as it is written, until interrupted')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;verify' {
            [CompletionResult]::new('--bundle', '--bundle', [CompletionResultType]::ParameterName, 'Verify this bundle file (`-` for stdin) instead of a repository')
            [CompletionResult]::new('--expect-head', '--expect-head', [CompletionResultType]::ParameterName, 'Also require this head: the pad''s head with PAD or --bundle, else the journal''s head hash')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'A read ticket for the pad')
            [CompletionResult]::new('--ticket-file', '--ticket-file', [CompletionResultType]::ParameterName, 'Read the ticket from FILE (first line)')
            [CompletionResult]::new('--proof', '--proof', [CompletionResultType]::ParameterName, 'Verify this proof file (from `locker proof`) with --key, with no repository')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)')
            [CompletionResult]::new('--checkpoint', '--checkpoint', [CompletionResultType]::ParameterName, 'Check this signed checkpoint (a note, as `locker checkpoint` prints it) against the witness policy alone: signed by the policy''s log key and cosigned by a quorum of its witnesses. `verify --policy FILE` with nothing else to verify checks the repository''s (or --remote''s) latest checkpoint the same way. Exit 1 when it falls short')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Also require every pad append, artifact publish and step to carry a good agent signature: each unsigned one is a problem (exit 1)')
            [CompletionResult]::new('--require-self-keys', '--require-self-keys', [CompletionResultType]::ParameterName, 'Also require every signature to come from a key its agent registered itself (with its own token, `locker key register`): each one by a key the operator registered is a problem (exit 1). The report says, per agent, which keys its signatures come from')
            [CompletionResult]::new('--no-pin', '--no-pin', [CompletionResultType]::ParameterName, 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;checkpoint' {
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)')
            [CompletionResult]::new('--witness', '--witness', [CompletionResultType]::ParameterName, 'Ask the witness at URL to cosign the checkpoint (C2SP tlog-witness), proving it consistent with what the witness cosigned before; its cosignature is added to the stored checkpoint. Repeatable. Exit 1 when a witness does not cosign')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--no-pin', '--no-pin', [CompletionResultType]::ParameterName, 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)')
            [CompletionResult]::new('--accept-rollback', '--accept-rollback', [CompletionResultType]::ParameterName, 'Accept that the repository''s database lost entries the log key had signed (a backup restored on purpose): journal a `repo.rollback` entry naming the checkpoint given up, and sign the journal that ends with it, which becomes the log key''s new high-water mark. Readers pinned beyond the restored size will see a fork. Local only')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;proof' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('inclusion', 'inclusion', [CompletionResultType]::ParameterValue, 'Prove a journal entry (or the entry that recorded a pad block) included in the log')
            [CompletionResult]::new('consistency', 'consistency', [CompletionResultType]::ParameterValue, 'Prove the log''s checkpoint at OLD entries consistent with the one at NEW')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;proof;inclusion' {
            [CompletionResult]::new('--pad', '--pad', [CompletionResultType]::ParameterName, 'Prove the entry that recorded a block of this pad')
            [CompletionResult]::new('--block', '--block', [CompletionResultType]::ParameterName, 'The block''s sequence number in the pad (0 is the envelope)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the proof file to FILE instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the proof file to FILE instead of stdout')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;proof;consistency' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the proof file to FILE instead of stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the proof file to FILE instead of stdout')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;proof;help' {
            [CompletionResult]::new('inclusion', 'inclusion', [CompletionResultType]::ParameterValue, 'Prove a journal entry (or the entry that recorded a pad block) included in the log')
            [CompletionResult]::new('consistency', 'consistency', [CompletionResultType]::ParameterValue, 'Prove the log''s checkpoint at OLD entries consistent with the one at NEW')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;proof;help;inclusion' {
            break
        }
        'locker;proof;help;consistency' {
            break
        }
        'locker;proof;help;help' {
            break
        }
        'locker;backup' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;restore' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The directory to restore into (it will hold `.locker/`)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Replace a repository that is already there without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Replace a repository that is already there without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--accept-rollback', '--accept-rollback', [CompletionResultType]::ParameterName, 'Restore it even if it is older than checkpoints the replaced repository''s log key signed since (refused otherwise, exit 6): journals a `repo.rollback` entry naming the checkpoint given up, and signs the restored journal. Readers pinned beyond it will see a fork')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;gc' {
            [CompletionResult]::new('--pads-older-than', '--pads-older-than', [CompletionResultType]::ParameterName, 'Prune the payloads of pads sealed or expired at least AGE ago')
            [CompletionResult]::new('--abandoned-older-than', '--abandoned-older-than', [CompletionResultType]::ParameterName, 'Prune the text of leases abandoned at least AGE ago, and of their plans and steps')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be removed, and change nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Remove without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Remove without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--blobs', '--blobs', [CompletionResultType]::ParameterName, 'Remove unreferenced blobs and stray blob files')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;store' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy the repository into another store, every chain and hash unchanged, and verify the copy')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;store;copy' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The destination: an empty PostgreSQL database''s URL, or a new directory')
            [CompletionResult]::new('--to-password-file', '--to-password-file', [CompletionResultType]::ParameterName, 'The file whose first line is the destination database''s password')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;store;help' {
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy the repository into another store, every chain and hash unchanged, and verify the copy')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;store;help;copy' {
            break
        }
        'locker;store;help;help' {
            break
        }
        'locker;doctor' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;review' {
            [CompletionResult]::new('--bundle', '--bundle', [CompletionResultType]::ParameterName, 'Review this bundle file (`-` for stdin); needs no repository')
            [CompletionResult]::new('--expect-head', '--expect-head', [CompletionResultType]::ParameterName, 'Require this head (64 hex characters), obtained from the pad''s writer')
            [CompletionResult]::new('--range', '--range', [CompletionResultType]::ParameterName, 'The changes to check against allowed_paths (default: the attested commit against its first parent)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'The git checkout to review against (default: the current directory)')
            [CompletionResult]::new('--checkout', '--checkout', [CompletionResultType]::ParameterName, 'The git checkout to review against (default: the current directory)')
            [CompletionResult]::new('--ticket', '--ticket', [CompletionResultType]::ParameterName, 'A read ticket for the pad')
            [CompletionResult]::new('--ticket-file', '--ticket-file', [CompletionResultType]::ParameterName, 'Read the ticket from FILE (first line)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The log''s verifier key (`name+keyid+AQ…`, as `locker key show` prints it), or a file holding it')
            [CompletionResult]::new('--state', '--state', [CompletionResultType]::ParameterName, 'Keep pinned checkpoints in DIR (default: the user''s state directory, e.g. ~/.local/state/locker)')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'Accept a checkpoint only when it carries this witness policy''s quorum of valid cosignatures (C2SP tlog-policy: `log`, `witness`, `group` and `quorum` lines), the first one too; one that does not is neither accepted nor pinned (exit 1, naming the missing witnesses). Without --key the policy''s `log` key is the trusted key. Default: $LOCKER_POLICY, else `policy` in the reader''s config file ($LOCKER_CONFIG, else ~/.config/locker/config.json)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--rerun', '--rerun', [CompletionResultType]::ParameterName, 'Re-run the attested test command and compare its exit code')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Count skipped checks as failures')
            [CompletionResult]::new('--require-self-keys', '--require-self-keys', [CompletionResultType]::ParameterName, 'Fail when a block is signed with a key the operator registered rather than its agent itself (the `self_keys` check; without it the report only says, per agent)')
            [CompletionResult]::new('--no-pin', '--no-pin', [CompletionResultType]::ParameterName, 'Do not consult or update the pinned checkpoint (a rewritten log goes unnoticed)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;mcp' {
            [CompletionResult]::new('--sign-key', '--sign-key', [CompletionResultType]::ParameterName, 'Sign the write with the agent key in FILE (from `locker key generate`); the variable may also hold the `PRIVATE+KEY+…` line itself')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;skill' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address and port to listen on')
            [CompletionResult]::new('--header-timeout', '--header-timeout', [CompletionResultType]::ParameterName, 'Seconds a client may take to send a request''s headers')
            [CompletionResult]::new('--body-timeout', '--body-timeout', [CompletionResultType]::ParameterName, 'Seconds a client may take to send a request''s body')
            [CompletionResult]::new('--max-connections', '--max-connections', [CompletionResultType]::ParameterName, 'Most connections open at once')
            [CompletionResult]::new('--require-token', '--require-token', [CompletionResultType]::ParameterName, 'Demand an agent''s bearer token (`locker token create`) on every write route that has no credential of its own (leases, plans, steps, pad creation, deposit, reaping) and on the listings (`/v1/journal`, `/v1/verify`, `/v1/leases`, `/v1/pads`); without it they also serve anonymous callers, as the peers do. The default is false on loopback and true with `--allow-remote-http`; `--require-token=false` turns it off there')
            [CompletionResult]::new('--allow-origin', '--allow-origin', [CompletionResultType]::ParameterName, 'A web origin (`https://app.example.com`) whose pages may call this server (CORS); requests from any other origin are refused (403). None by default. Repeatable')
            [CompletionResult]::new('--allow-host', '--allow-host', [CompletionResultType]::ParameterName, 'A host name clients may call this server by, besides loopback names and addresses and the listen address: any other `Host` is refused (421), which defeats DNS rebinding. Repeatable')
            [CompletionResult]::new('--max-connections-per-peer', '--max-connections-per-peer', [CompletionResultType]::ParameterName, 'Most connections one client address may hold open (others are answered 429)')
            [CompletionResult]::new('--max-requests-per-peer', '--max-requests-per-peer', [CompletionResultType]::ParameterName, 'Most requests one client address may have in flight, bodies still arriving included (others are answered 429)')
            [CompletionResult]::new('--max-concurrent', '--max-concurrent', [CompletionResultType]::ParameterName, 'Most operations running at once (a request takes a slot once its body has arrived; others wait, then get 503)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Keep the repository in this PostgreSQL database (`postgres://USER@HOST:PORT/DATABASE`, no password in it) instead of SQLite inside `.locker/`; several servers can share it. A database that already holds a repository is joined, not changed')
            [CompletionResult]::new('--store-password-file', '--store-password-file', [CompletionResultType]::ParameterName, 'The file whose first line is the database password (else `PGPASSWORD` or `~/.pgpass`); its path, never the password, is kept in `config.json`')
            [CompletionResult]::new('--witness', '--witness', [CompletionResultType]::ParameterName, 'Ask the witness at URL (a `locker witness serve` or any C2SP tlog-witness) to cosign every checkpoint `GET /v1/checkpoint` signs; the cosignatures are stored with it. Repeatable')
            [CompletionResult]::new('--payment-mode', '--payment-mode', [CompletionResultType]::ParameterName, 'Pay-per-pad: `txid` makes `POST /v1/pads` demand `X-Payment-Proof: <tx hash>` of a token transfer to the wallet, checked on chain (402 with a challenge without it); `off` (the default) shows nothing about payments; `locker serve --help` lists the `--payment-*` settings')
            [CompletionResult]::new('--payment-wallet', '--payment-wallet', [CompletionResultType]::ParameterName, 'The wallet payments must go to (0x + 40 hex digits); required with `--payment-mode txid`')
            [CompletionResult]::new('--payment-rpc-url', '--payment-rpc-url', [CompletionResultType]::ParameterName, 'The JSON-RPC endpoint that checks payments (every call times out after 5 seconds)')
            [CompletionResult]::new('--payment-token', '--payment-token', [CompletionResultType]::ParameterName, 'The token contract payments are made in (default: USDC on Base)')
            [CompletionResult]::new('--payment-amount', '--payment-amount', [CompletionResultType]::ParameterName, 'The price of one pad in token units (USDC has 6 decimals: 2000 is 0.002 USDC)')
            [CompletionResult]::new('--payment-confirmations', '--payment-confirmations', [CompletionResultType]::ParameterName, 'Blocks a payment needs, its own included, before it counts')
            [CompletionResult]::new('--payment-chain-id', '--payment-chain-id', [CompletionResultType]::ParameterName, 'The chain id the RPC node must be on (8453 is Base)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--allow-remote-http', '--allow-remote-http', [CompletionResultType]::ParameterName, 'Allow an address other than loopback; locker speaks plain HTTP, so put a TLS proxy in front of it')
            [CompletionResult]::new('--exit-with-stdin', '--exit-with-stdin', [CompletionResultType]::ParameterName, 'Stop (as on SIGTERM) when stdin reaches its end: for a parent that must not leave the server behind when it dies (`locker quest`)')
            [CompletionResult]::new('--init', '--init', [CompletionResultType]::ParameterName, 'Create the repository first if there is none (in `-R PATH`, else the current directory), as `locker init` would: for containers and services that start empty')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;quest' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Keep the temporary directory (the repository, the workers'' files) and print its path')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;witness' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a witness in DIR: its cosigning key and the logs it follows')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a witness''s state: its key, and per followed log the newest checkpoint it cosigned')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;witness;init' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The witness''s name (a schema-less URL such as `witness.example.com/w1`)')
            [CompletionResult]::new('--log', '--log', [CompletionResultType]::ParameterName, 'Follow the log with this verifier key (as `locker key show` prints it); repeatable')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;witness;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address to listen on')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--allow-remote-http', '--allow-remote-http', [CompletionResultType]::ParameterName, 'Allow a non-loopback listen address (plain HTTP: put TLS in front)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;witness;show' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;witness;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a witness in DIR: its cosigning key and the logs it follows')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a witness''s state: its key, and per followed log the newest checkpoint it cosigned')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;witness;help;init' {
            break
        }
        'locker;witness;help;serve' {
            break
        }
        'locker;witness;help;show' {
            break
        }
        'locker;witness;help;help' {
            break
        }
        'locker;completions' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--remote', '--remote', [CompletionResultType]::ParameterName, 'Run pad and verify commands against the `locker serve` at URL instead of a local repository (http:// only to a loopback address such as 127.0.0.1; otherwise https://)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'Act in scope NAME as the operator (default: `default`); with `LOCKER_TOKEN` set, the token''s scope is the only one allowed')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a locker repository (`.locker/`) in PATH, or report the one already there')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the repository at a glance: journal, checkpoint, pads, leases, signing, store')
            [CompletionResult]::new('pad', 'pad', [CompletionResultType]::ParameterValue, 'Work with handoff pads: hash-chained blocks, sealed and read with tickets')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Append one block to a pad (same as `locker pad append`)')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a pad (same as `locker pad seal`)')
            [CompletionResult]::new('deposit', 'deposit', [CompletionResultType]::ParameterValue, 'Create, fill and seal a pad in one atomic step')
            [CompletionResult]::new('artifact', 'artifact', [CompletionResultType]::ParameterValue, 'Publish and read versioned artifacts (compare-and-swap, idempotent retries)')
            [CompletionResult]::new('token', 'token', [CompletionResultType]::ParameterValue, 'Manage agent tokens: each acts as one agent in one scope (`LOCKER_TOKEN`)')
            [CompletionResult]::new('key', 'key', [CompletionResultType]::ParameterValue, 'Show the log''s key; manage agent signing keys (Ed25519) and whether writes must be signed')
            [CompletionResult]::new('lease', 'lease', [CompletionResultType]::ParameterValue, 'Lease work items: exclusive, expiring, fenced locks with heartbeats and a reaper')
            [CompletionResult]::new('manifest', 'manifest', [CompletionResultType]::ParameterValue, 'Commit, show and diff a work item''s plan (its manifest of steps)')
            [CompletionResult]::new('step', 'step', [CompletionResultType]::ParameterValue, 'Log a step of a work item under its current lease: what was planned and executed')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the journal, newest first, like `git log`')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the repository''s integrity, like `git fsck`, or one pad''s')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'Print the log''s latest signed checkpoint')
            [CompletionResult]::new('proof', 'proof', [CompletionResultType]::ParameterValue, 'Prove journal entries included in, and checkpoints consistent with, the log')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Copy the repository into a new directory, consistently, while others keep writing')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Restore a backup made by `locker backup`, after verifying it')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Remove what the retention policy allows: old pads'' payloads, abandoned work, unreferenced blobs')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'Move the repository between stores (SQLite and PostgreSQL)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check the repository and its surroundings, and say what to do about each finding')
            [CompletionResult]::new('review', 'review', [CompletionResultType]::ParameterValue, 'Review a handed-off pad against this git checkout, for CI')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve locker''s operations as MCP tools over stdio, for agents')
            [CompletionResult]::new('skill', 'skill', [CompletionResultType]::ParameterValue, 'Print a SKILL.md that teaches an agent to use locker from a shell')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the repository over HTTP until SIGTERM or SIGINT')
            [CompletionResult]::new('quest', 'quest', [CompletionResultType]::ParameterValue, 'Run the demo story with real processes: crashes, a stale retry, tampering, each checked')
            [CompletionResult]::new('witness', 'witness', [CompletionResultType]::ParameterValue, 'Run a witness: cosign the checkpoints of logs it follows, never two inconsistent ones')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script for SHELL to stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;help;init' {
            break
        }
        'locker;help;status' {
            break
        }
        'locker;help;pad' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an empty pad and print its write key and read ticket (shown once)')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Append one block to a pad')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a pad: no more appends; the stored chain is re-checked first')
            [CompletionResult]::new('ticket', 'ticket', [CompletionResultType]::ParameterValue, 'Mint a read ticket for a pad (shown once)')
            [CompletionResult]::new('revoke-ticket', 'revoke-ticket', [CompletionResultType]::ParameterValue, 'Revoke a read ticket: it then reads nothing (revoking twice changes nothing)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a pad''s manifest: state, block count, bytes, head and times')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read blocks FROM..=TO of a pad with a read ticket')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List pads with their state, blocks and head')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a pad to one self-contained bundle file (`locker.bundle.v1`)')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Verify a bundle file and store it as a sealed pad (new write key and ticket, shown once)')
            break
        }
        'locker;help;pad;create' {
            break
        }
        'locker;help;pad;append' {
            break
        }
        'locker;help;pad;seal' {
            break
        }
        'locker;help;pad;ticket' {
            break
        }
        'locker;help;pad;revoke-ticket' {
            break
        }
        'locker;help;pad;show' {
            break
        }
        'locker;help;pad;read' {
            break
        }
        'locker;help;pad;list' {
            break
        }
        'locker;help;pad;export' {
            break
        }
        'locker;help;pad;import' {
            break
        }
        'locker;help;append' {
            break
        }
        'locker;help;seal' {
            break
        }
        'locker;help;deposit' {
            break
        }
        'locker;help;artifact' {
            [CompletionResult]::new('publish', 'publish', [CompletionResultType]::ParameterValue, 'Publish a new version of KEY, if its current version is still the one you read')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Print KEY''s current content, or that of one version')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show every version of KEY, oldest first')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the keys of your scope with their current versions')
            break
        }
        'locker;help;artifact;publish' {
            break
        }
        'locker;help;artifact;get' {
            break
        }
        'locker;help;artifact;log' {
            break
        }
        'locker;help;artifact;list' {
            break
        }
        'locker;help;token' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an agent and print its bearer token (shown once)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an agent''s token for good (revoking twice changes nothing)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List agents with their scopes and states (never their tokens)')
            break
        }
        'locker;help;token;create' {
            break
        }
        'locker;help;token;revoke' {
            break
        }
        'locker;help;token;list' {
            break
        }
        'locker;help;key' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the verifier key of the log''s checkpoints')
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Make an agent''s Ed25519 key pair here, where the agent runs')
            [CompletionResult]::new('register', 'register', [CompletionResultType]::ParameterValue, 'Register an agent''s verifier key: the agent its own, with its token')
            [CompletionResult]::new('generate', 'generate', [CompletionResultType]::ParameterValue, 'Create an Ed25519 key pair for an agent and register its public key (the operator''s way)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the registered agent keys, the repository id and the signing policy')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke an agent''s signing key (revoking twice changes nothing)')
            [CompletionResult]::new('require', 'require', [CompletionResultType]::ParameterValue, 'Require signed appends, publishes and steps (or, with `--off`, stop requiring them)')
            break
        }
        'locker;help;key;show' {
            break
        }
        'locker;help;key;new' {
            break
        }
        'locker;help;key;register' {
            break
        }
        'locker;help;key;generate' {
            break
        }
        'locker;help;key;list' {
            break
        }
        'locker;help;key;revoke' {
            break
        }
        'locker;help;key;require' {
            break
        }
        'locker;help;lease' {
            [CompletionResult]::new('acquire', 'acquire', [CompletionResultType]::ParameterValue, 'Acquire an exclusive lease on a work item and print its id')
            [CompletionResult]::new('heartbeat', 'heartbeat', [CompletionResultType]::ParameterValue, 'Extend a lease by its TTL from now, optionally with progress details')
            [CompletionResult]::new('complete', 'complete', [CompletionResultType]::ParameterValue, 'Complete a lease, keeping a result, and print the plan diff')
            [CompletionResult]::new('release', 'release', [CompletionResultType]::ParameterValue, 'Release a lease without completing it, so the work item can be acquired again')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a work item''s newest lease: state, holder, fencing token, attempts, last heartbeat')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List leases (expired ones are reaped first), optionally only those in one state')
            [CompletionResult]::new('reap', 'reap', [CompletionResultType]::ParameterValue, 'Abandon every expired lease in the repository now')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Show every lease, plan, step and transition of a work item, with an integrity verdict')
            break
        }
        'locker;help;lease;acquire' {
            break
        }
        'locker;help;lease;heartbeat' {
            break
        }
        'locker;help;lease;complete' {
            break
        }
        'locker;help;lease;release' {
            break
        }
        'locker;help;lease;show' {
            break
        }
        'locker;help;lease;list' {
            break
        }
        'locker;help;lease;reap' {
            break
        }
        'locker;help;lease;history' {
            break
        }
        'locker;help;manifest' {
            [CompletionResult]::new('commit', 'commit', [CompletionResultType]::ParameterValue, 'Commit a plan of steps under the work item''s current lease')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a work item''s newest plan, or one version of it')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare the newest plan with the steps logged under the newest lease')
            break
        }
        'locker;help;manifest;commit' {
            break
        }
        'locker;help;manifest;show' {
            break
        }
        'locker;help;manifest;diff' {
            break
        }
        'locker;help;step' {
            break
        }
        'locker;help;log' {
            break
        }
        'locker;help;verify' {
            break
        }
        'locker;help;checkpoint' {
            break
        }
        'locker;help;proof' {
            [CompletionResult]::new('inclusion', 'inclusion', [CompletionResultType]::ParameterValue, 'Prove a journal entry (or the entry that recorded a pad block) included in the log')
            [CompletionResult]::new('consistency', 'consistency', [CompletionResultType]::ParameterValue, 'Prove the log''s checkpoint at OLD entries consistent with the one at NEW')
            break
        }
        'locker;help;proof;inclusion' {
            break
        }
        'locker;help;proof;consistency' {
            break
        }
        'locker;help;backup' {
            break
        }
        'locker;help;restore' {
            break
        }
        'locker;help;gc' {
            break
        }
        'locker;help;store' {
            [CompletionResult]::new('copy', 'copy', [CompletionResultType]::ParameterValue, 'Copy the repository into another store, every chain and hash unchanged, and verify the copy')
            break
        }
        'locker;help;store;copy' {
            break
        }
        'locker;help;doctor' {
            break
        }
        'locker;help;review' {
            break
        }
        'locker;help;mcp' {
            break
        }
        'locker;help;skill' {
            break
        }
        'locker;help;serve' {
            break
        }
        'locker;help;quest' {
            break
        }
        'locker;help;witness' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a witness in DIR: its cosigning key and the logs it follows')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the witness in DIR over HTTP (`POST /add-checkpoint`) until SIGTERM or SIGINT')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show a witness''s state: its key, and per followed log the newest checkpoint it cosigned')
            break
        }
        'locker;help;witness;init' {
            break
        }
        'locker;help;witness;serve' {
            break
        }
        'locker;help;witness;show' {
            break
        }
        'locker;help;completions' {
            break
        }
        'locker;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
