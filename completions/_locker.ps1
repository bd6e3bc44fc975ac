
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
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a locker repository (`.locker/`) in PATH, or report the one already there')
            [CompletionResult]::new('pad', 'pad', [CompletionResultType]::ParameterValue, 'Work with handoff pads: hash-chained blocks, sealed and read with tickets')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Append one block to a pad (same as `locker pad append`)')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a pad (same as `locker pad seal`)')
            [CompletionResult]::new('deposit', 'deposit', [CompletionResultType]::ParameterValue, 'Create, fill and seal a pad in one atomic step')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the journal, newest first, like `git log`')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the repository''s integrity, like `git fsck`, or one pad''s')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script for SHELL to stdout')
            [CompletionResult]::new('util', 'util', [CompletionResultType]::ParameterValue, 'Developer tools')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;init' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;pad' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
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
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;pad;create' {
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'Seconds until the pad expires unless sealed (1–2592000)')
            [CompletionResult]::new('--max-blocks', '--max-blocks', [CompletionResultType]::ParameterName, 'Most blocks the pad may hold (1–4096)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
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
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
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
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Write the payloads'' exact bytes to stdout, one after another')
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
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
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
        'locker;pad;help;help' {
            break
        }
        'locker;append' {
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Use TEXT as the payload')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'Use TEXT as the payload')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The block''s content type')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'The pad''s write key')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Read the write key from FILE (first line)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
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
            [CompletionResult]::new('--ttl', '--ttl', [CompletionResultType]::ParameterName, 'The pad''s TTL in seconds (1–2592000), kept for compatibility: a deposited pad is sealed at once, and sealed pads do not expire')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
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
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Oldest first')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;verify' {
            [CompletionResult]::new('--expect-head', '--expect-head', [CompletionResultType]::ParameterName, 'Also require this head: the pad''s head with PAD, else the journal''s head hash')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'locker;completions' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;util' {
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('generate-docs', 'generate-docs', [CompletionResultType]::ParameterValue, 'Write the man pages and completion scripts into `man/` and `completions/`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;util;generate-docs' {
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'The directory holding `man/` and `completions/`')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--repo', '--repo', [CompletionResultType]::ParameterName, 'Use the repository in PATH (the directory holding `.locker/`) instead of searching the current directory and its parents')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as one JSON object on stdout (JSON Lines for streams), errors as JSON on stderr')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print no status lines, only data')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'locker;util;help' {
            [CompletionResult]::new('generate-docs', 'generate-docs', [CompletionResultType]::ParameterValue, 'Write the man pages and completion scripts into `man/` and `completions/`')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;util;help;generate-docs' {
            break
        }
        'locker;util;help;help' {
            break
        }
        'locker;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a locker repository (`.locker/`) in PATH, or report the one already there')
            [CompletionResult]::new('pad', 'pad', [CompletionResultType]::ParameterValue, 'Work with handoff pads: hash-chained blocks, sealed and read with tickets')
            [CompletionResult]::new('append', 'append', [CompletionResultType]::ParameterValue, 'Append one block to a pad (same as `locker pad append`)')
            [CompletionResult]::new('seal', 'seal', [CompletionResultType]::ParameterValue, 'Seal a pad (same as `locker pad seal`)')
            [CompletionResult]::new('deposit', 'deposit', [CompletionResultType]::ParameterValue, 'Create, fill and seal a pad in one atomic step')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show the journal, newest first, like `git log`')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check the repository''s integrity, like `git fsck`, or one pad''s')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script for SHELL to stdout')
            [CompletionResult]::new('util', 'util', [CompletionResultType]::ParameterValue, 'Developer tools')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'locker;help;init' {
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
        'locker;help;append' {
            break
        }
        'locker;help;seal' {
            break
        }
        'locker;help;deposit' {
            break
        }
        'locker;help;log' {
            break
        }
        'locker;help;verify' {
            break
        }
        'locker;help;completions' {
            break
        }
        'locker;help;util' {
            [CompletionResult]::new('generate-docs', 'generate-docs', [CompletionResultType]::ParameterValue, 'Write the man pages and completion scripts into `man/` and `completions/`')
            break
        }
        'locker;help;util;generate-docs' {
            break
        }
        'locker;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
